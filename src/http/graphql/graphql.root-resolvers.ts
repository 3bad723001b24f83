import type { GraphQLFieldResolver, GraphQLSchema } from "graphql";
import { getMetadataStorage, type AuthCheckerFn } from "type-graphql";

/**
 * type-graphql answers every call of a root field (`quote`, `cryptoPrice`, `etf`, ...) through its handler: an async
 * middleware chain for `@Authorized`, the parameters sorted and mapped, each `@Args` class found by a linear scan of
 * the metadata and rebuilt with class-transformer's rules, then an async "validation" that the build turns off. On a
 * cached quote that is more CPU than graphql-jit's execution of the operation (BENCHMARKS.md, "The hot path against
 * the peers"). A root field whose resolver takes only `@Args` of scalar fields and `@Ctx()`, with no middleware and no
 * validation, gets a direct resolver here that does the same: the auth checker on the field's roles (an error as a
 * rejected promise, as the chain gives it), the args class filled as type-graphql fills it, the method called. A call
 * whose arguments are not all scalars or null still goes through type-graphql's own handler. Returns how many root
 * fields were replaced.
 */
export function rootFieldsDirect<Ctx extends object, Role>(
  schema: GraphQLSchema,
  authChecker: AuthCheckerFn<Ctx, Role>,
  globalValidate: boolean,
): number {
  if (globalValidate) return 0;
  const storage = getMetadataStorage();
  const query = schema.getQueryType();
  if (!query) return 0;
  const fields = query.getFields();
  let replaced = 0;
  for (const meta of storage.queries) {
    const field = fields[meta.schemaName];
    const original = field?.resolve;
    if (!field || !original || (meta.middlewares?.length ?? 0) > 0) continue;
    const params = [...(meta.params ?? [])].sort((a, b) => a.index - b.index);
    if (params.some((p, i) => p.index !== i)) continue;
    const plan: Array<{ kind: "ctx"; prop: string | undefined } | { kind: "args"; build: ArgsBuilder }> = [];
    for (const p of params) {
      if (p.kind === "context") plan.push({ kind: "ctx", prop: p.propertyName });
      else if (p.kind === "args" && p.validateSettings === undefined && p.validateFn === undefined) {
        const build = scalarArgsBuilder(p.getType() as unknown);
        if (!build) break;
        plan.push({ kind: "args", build });
      } else break;
    }
    if (plan.length !== params.length) continue;
    const Target = meta.target as new () => Record<string, (...args: unknown[]) => unknown>;
    if (Target.length !== 0 || typeof Target.prototype[meta.methodName] !== "function") continue;
    const roles = meta.roles as Role[] | undefined;
    let instance: Record<string, (...args: unknown[]) => unknown> | undefined;
    const direct: GraphQLFieldResolver<unknown, Ctx> = (root, args, context, info) => {
      const values: unknown[] = [];
      for (const step of plan) {
        if (step.kind === "ctx") values.push(step.prop === undefined ? context : context[step.prop as keyof Ctx]);
        else {
          const built = step.build(args);
          if (built === undefined) return original(root, args, context, info);
          values.push(built);
        }
      }
      if (roles !== undefined) {
        try {
          // Our checker throws its own errors (401/403 reasons) and otherwise grants; false is type-graphql's case.
          const granted = authChecker({ root, args, context, info }, roles);
          if (granted !== true) return original(root, args, context, info);
        } catch (err) {
          return Promise.reject(err);
        }
      }
      instance ??= new Target();
      return instance[meta.methodName]!(...values);
    };
    field.resolve = direct as GraphQLFieldResolver<unknown, unknown>;
    replaced++;
  }
  return replaced;
}

/** The args instance, or undefined where a value is not a plain scalar (type-graphql converts those). */
type ArgsBuilder = (args: Record<string, unknown>) => object | undefined;

function scalarArgsBuilder(ArgsClass: unknown): ArgsBuilder | undefined {
  if (typeof ArgsClass !== "function") return undefined;
  const storage = getMetadataStorage();
  const argsType = storage.argumentTypes.find((t) => t.target === ArgsClass);
  // A superclass's fields would be merged by type-graphql; not worth following here.
  if (!argsType || Object.getPrototypeOf(ArgsClass) !== Function.prototype) return undefined;
  const names: string[] = [];
  for (const f of argsType.fields ?? []) {
    const t = f.getType() as unknown;
    if (storage.inputTypes.some((i) => i.target === t)) return undefined;
    names.push(f.name);
  }
  const Cls = ArgsClass as new () => Record<string, unknown>;
  return (args) => {
    const data: Record<string, unknown> = {};
    for (const name of names) {
      const v = args[name];
      if (v === undefined) continue;
      if (v !== null && typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") return undefined;
      data[name] = v;
    }
    // type-graphql's convertToType: the class's own undefined fields not in the data are dropped, then assigned.
    const instance = new Cls();
    for (const key of Object.keys(instance)) if (instance[key] === undefined && !(key in data)) delete instance[key];
    return Object.assign(instance, data);
  };
}
