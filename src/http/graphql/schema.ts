import { isObjectType, type GraphQLSchema } from "graphql";
import { buildSchemaSync, getMetadataStorage, type AuthCheckerFn, type NonEmptyArray, type PubSub } from "type-graphql";
import { requireFieldGuard, type FieldGuard } from "../../domain/instrument/instrument.access";
import { rootFieldsDirect } from "./graphql.root-resolvers";
import type { Context } from "../http.context";
import { GENERATED_RESOLVERS } from "./graphql.resolvers.generated";

/** Every resolver of src/http/graphql/resolvers/*.resolver.ts, gathered by `npm run generate`. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const RESOLVERS: NonEmptyArray<Function> = GENERATED_RESOLVERS;

/**
 * `@Authorized()` means "a valid key"; `@Authorized("etf")` also needs that
 * scope, and `@Authorized("stock", "search")` either of them (a field that
 * shows what either scope's endpoints show). Throwing (not returning false)
 * keeps the specific reason, which the error mapping turns into 401 or 403.
 * docs/contract.md's table of scopes is printed from these guards
 * (graphql.scopes.ts).
 */
export const authChecker: AuthCheckerFn<Context, FieldGuard> = ({ context }, guards) => {
  requireFieldGuard(context, guards);
  return true;
};

/**
 * type-graphql requires a PubSub for any schema with subscriptions, even when every subscription brings its own
 * `subscribe` (live.resolver.ts: the hub's changes through the context, per connection). No field names topics, so
 * nothing publishes to or subscribes through this one; a field that did would fail at once rather than hang.
 */
export const NO_TOPICS: PubSub = {
  publish: () => {
    throw new Error("subscriptions take their changes from the live hub (live.resolver.ts), not from topics");
  },
  subscribe: () => {
    throw new Error("subscriptions take their changes from the live hub (live.resolver.ts), not from topics");
  },
};

/** type-graphql's class-validator pass, off for the whole schema; the direct resolvers rely on that (they skip it). */
const VALIDATE = false;

let cached: GraphQLSchema | undefined;

const QUERY_DESCRIPTION =
  "Market data: quotes, candles, ETFs, funds, stocks, dividends, search, lists and index constituents. " +
  "Every field needs a valid x-api-key; data fields also need the key's scope for the security or data kind.";

const SUBSCRIPTION_DESCRIPTION =
  "Live prices, pushed as they change: over the graphql-transport-ws protocol (graphql-ws) on /graphql only, the " +
  'key in connection_init\'s payload ({"x-api-key": "<key>"}); each symbol needs the scope of its security\'s type.';

/** The one schema both doors execute against; built once per process. */
export function getSchema(): GraphQLSchema {
  if (cached) return cached;
  cached = buildSchemaSync({
    resolvers: RESOLVERS,
    authChecker,
    validate: VALIDATE,
    pubSub: NO_TOPICS,
  });
  // type-graphql has no option for the root type's description; the SDL and introspection show this one.
  cached.getQueryType()!.description = QUERY_DESCRIPTION;
  cached.getSubscriptionType()!.description = SUBSCRIPTION_DESCRIPTION;
  plainFieldsUnwrapped(cached);
  rootFieldsDirect(cached, authChecker, VALIDATE);
  return cached;
}

/**
 * type-graphql gives every `@Field` a resolver of its own (`createBasicFieldResolver`): an object per call, a closure,
 * then `root[name]`. A field with no `@Authorized`, no middleware (the build passes no global ones) and no
 * `@FieldResolver` gains nothing from it, and graphql-jit must defer every field that has a resolver instead of reading
 * the property inline: on a quote those wrappers cost more than the operation's own execution (BENCHMARKS.md, "The
 * hot path against the peers"). Such fields get graphql's default resolver back (no `resolve`), which reads the same
 * property. Read from type-graphql's metadata as the build left it; a field it cannot vouch for keeps its wrapper.
 * Returns how many fields were unwrapped.
 */
export function plainFieldsUnwrapped(schema: GraphQLSchema): number {
  const storage = getMetadataStorage();
  const withResolver = new Set<string>();
  for (const fr of storage.fieldResolvers) {
    const typeClass = fr.getObjectType?.();
    const meta = typeClass && storage.objectTypes.find((o) => o.target === typeClass);
    // A field resolver whose type cannot be told: vouch for nothing.
    if (!meta) return 0;
    withResolver.add(`${meta.name}.${fr.schemaName}`);
  }
  // Fields named by `@Authorized` or `@UseMiddleware`, by their class, in case the metadata below missed one.
  const guarded = new Map<unknown, Set<string>>();
  for (const g of [...storage.authorizedFields, ...storage.middlewares]) {
    if (!guarded.has(g.target)) guarded.set(g.target, new Set());
    guarded.get(g.target)!.add(g.fieldName);
  }
  let unwrapped = 0;
  for (const meta of storage.objectTypes) {
    const type = schema.getType(meta.name);
    if (!isObjectType(type)) continue;
    const fields = type.getFields();
    for (const f of meta.fields ?? []) {
      const field = fields[f.schemaName];
      const plain =
        field?.resolve !== undefined &&
        f.name === f.schemaName &&
        f.roles === undefined &&
        Array.isArray(f.middlewares) &&
        f.middlewares.length === 0 &&
        !withResolver.has(`${meta.name}.${f.schemaName}`) &&
        !guarded.get(f.target)?.has(f.name);
      if (plain) {
        field.resolve = undefined;
        unwrapped++;
      }
    }
  }
  return unwrapped;
}
