import {
  GraphQLScalarType,
  isObjectType,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from "graphql";
import { getMetadataStorage, type AuthCheckerFn } from "type-graphql";

type Storage = ReturnType<typeof getMetadataStorage>;
type ResolverMetadata = Storage["queries"][number] | Storage["fieldResolvers"][number];

/**
 * type-graphql answers every call of a root field (`quote`, `cryptoPrice`, `etf`, ...) through its handler: an async
 * middleware chain for `@Authorized`, the parameters sorted and mapped, each `@Args` class found by a linear scan of
 * the metadata and rebuilt by its rules, then an async "validation" that the build turns off. On a
 * cached quote that is more CPU than graphql-jit's execution of the operation (BENCHMARKS.md, "The hot path against
 * the peers"). A root field whose resolver takes only `@Args` of scalar fields and `@Ctx()`, with no middleware and no
 * validation, gets a direct resolver here that does the same: the auth checker on the field's roles (an error as a
 * rejected promise, as the chain gives it), the args class filled as type-graphql fills it, the method called. A call
 * whose arguments are not all scalars or null still goes through type-graphql's own handler. The `@FieldResolver`s of
 * resolver classes (`Quote.metrics`, `Etf.profile`, ...) go through the same handler, so they get the same direct
 * resolver where their `@Root()` is already an instance of its class (the services build them with `new`); any other
 * parent goes through type-graphql's handler, which converts it. Returns how many fields were replaced.
 */
export function rootFieldsDirect<Ctx extends object, Role>(
  schema: GraphQLSchema,
  authChecker: AuthCheckerFn<Ctx, Role>,
  globalValidate: boolean,
): number {
  if (globalValidate) return 0;
  const storage = getMetadataStorage();
  const query = schema.getQueryType();
  let replaced = 0;
  const handlers: Array<{ meta: ResolverMetadata; field: GraphQLField<unknown, unknown> | undefined }> = [];
  for (const meta of storage.queries) handlers.push({ meta, field: query?.getFields()[meta.schemaName] });
  for (const meta of storage.fieldResolvers) {
    if (meta.kind !== "external") continue;
    const typeClass = meta.getObjectType?.();
    const typeName = typeClass && storage.objectTypes.find((o) => o.target === typeClass)?.name;
    const type = typeName === undefined ? undefined : schema.getType(typeName);
    handlers.push({ meta, field: isObjectType(type) ? type.getFields()[meta.schemaName] : undefined });
  }
  for (const { meta, field } of handlers) {
    const original = field?.resolve;
    if (!field || !original || (meta.middlewares?.length ?? 0) > 0) continue;
    const params = [...(meta.params ?? [])].sort((a, b) => a.index - b.index);
    if (params.some((p, i) => p.index !== i)) continue;
    const plan: Step[] = [];
    for (const p of params) {
      if (p.kind === "context") plan.push({ kind: "ctx", prop: p.propertyName });
      else if (p.kind === "root") plan.push({ kind: "root", prop: p.propertyName, getType: p.getType });
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
        else if (step.kind === "root") {
          const value = step.prop === undefined ? root : (root as Record<string, unknown>)[step.prop];
          if (!takenAsIs(step.getType, value)) return original(root, args, context, info);
          values.push(value);
        } else {
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
      try {
        return instance[meta.methodName]!(...values);
      } catch (err) {
        // type-graphql's handler calls the method in a promise's callback: what it throws is a rejection there too.
        return Promise.reject(err);
      }
    };
    field.resolve = direct as GraphQLFieldResolver<unknown, unknown>;
    replaced++;
  }
  return replaced;
}

type Step =
  | { kind: "ctx"; prop: string | undefined }
  | { kind: "root"; prop: string | undefined; getType: (() => unknown) | undefined }
  | { kind: "args"; build: ArgsBuilder };

/**
 * Whether a `@Root()` value reaches the method unchanged through type-graphql's handler: null or undefined, a value
 * of a scalar type, or an instance of the declared class. The handler builds an instance from anything else; the
 * direct resolver leaves that value to the handler rather than rebuild it.
 */
function takenAsIs(getType: (() => unknown) | undefined, value: unknown): boolean {
  if (value === null || value === undefined || !getType) return true;
  const Target = getType();
  if (Target instanceof GraphQLScalarType) return true;
  return typeof Target === "function" && value instanceof Target;
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
    // The class's own instance, as a resolver method is given it: its field initialisers give the defaults, a field
    // the client left out that has no default is not there at all (a spread over defaults keeps them), and the
    // client's values go over the defaults.
    const instance = new Cls();
    for (const key of Object.keys(instance))
      if (instance[key] === undefined && args[key] === undefined) delete instance[key];
    for (const name of names) {
      const v = args[name];
      if (v === undefined) continue;
      if (v !== null && typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") return undefined;
      instance[name] = v;
    }
    return instance;
  };
}
