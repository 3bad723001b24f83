import { getNamedType, isObjectType, type GraphQLObjectType, type GraphQLSchema } from "graphql";
import { getMetadataStorage } from "type-graphql";
import { BY_SECURITY_TYPE, type FieldGuard } from "../../domain/instrument/instrument.access";

/**
 * A field's own guard, as its `@Authorized(...)` names it: scopes any one of which will do (`[]`: any valid key),
 * BY_SECURITY_TYPE, or undefined where the field has none and so needs what the field that returns its object needs.
 */
export type OwnGuard = readonly FieldGuard[] | undefined;

/** A field of an object type the schema can reach from `Query`, with its own guard. */
export interface GuardedField {
  type: string;
  field: string;
  guard: OwnGuard;
  /** The object type the field returns, if it returns one. */
  returns: string | undefined;
}

/**
 * The object types reachable from `Query` and `Subscription`, the roots first then breadth first; introspection types
 * left out.
 */
export function reachableObjectTypes(schema: GraphQLSchema): GraphQLObjectType[] {
  const roots = [schema.getQueryType(), schema.getSubscriptionType()].filter((t): t is GraphQLObjectType => !!t);
  if (roots.length === 0) return [];
  const seen = new Set<string>(roots.map((r) => r.name));
  const order: GraphQLObjectType[] = [...roots];
  for (let i = 0; i < order.length; i++) {
    for (const field of Object.values(order[i]!.getFields())) {
      const named = getNamedType(field.type);
      if (isObjectType(named) && !named.name.startsWith("__") && !seen.has(named.name)) {
        seen.add(named.name);
        order.push(named);
      }
    }
  }
  return order;
}

/** Every field of every reachable object type with its own guard, read from type-graphql's metadata. */
export function guardedFields(schema: GraphQLSchema): GuardedField[] {
  const storage = getMetadataStorage();
  const guards = new Map<string, OwnGuard>();
  const query = schema.getQueryType()?.name ?? "Query";
  for (const q of storage.queries) guards.set(`${query}.${q.schemaName}`, q.roles as OwnGuard);
  const subscription = schema.getSubscriptionType()?.name ?? "Subscription";
  for (const s of storage.subscriptions) guards.set(`${subscription}.${s.schemaName}`, s.roles as OwnGuard);
  for (const o of storage.objectTypes) {
    for (const f of o.fields ?? []) if (f.roles !== undefined) guards.set(`${o.name}.${f.schemaName}`, f.roles);
  }
  for (const fr of storage.fieldResolvers) {
    const typeClass = fr.getObjectType?.();
    const name = typeClass && storage.objectTypes.find((o) => o.target === typeClass)?.name;
    if (name !== undefined && fr.roles !== undefined) guards.set(`${name}.${fr.schemaName}`, fr.roles as OwnGuard);
  }
  return reachableObjectTypes(schema).flatMap((type) =>
    Object.values(type.getFields()).map((field) => {
      const named = getNamedType(field.type);
      const guard = guards.get(`${type.name}.${field.name}`);
      return { type: type.name, field: field.name, guard, returns: isObjectType(named) ? named.name : undefined };
    }),
  );
}

const code = (s: string) => `\`${s}\``;

/** How the contract's table words a guard; `returnedBy` names the fields returning the type (for an unguarded one). */
export function describeGuard(guard: OwnGuard, root: boolean, returnedBy: readonly string[]): string {
  if (guard === undefined) return root ? "no key" : `as the field returning it: ${returnedBy.map(code).join(", ")}`;
  if (guard.length === 0) return "any valid key";
  if (guard.includes(BY_SECURITY_TYPE)) {
    return "the scope of the security's type: `stock` (stocks and forex), `etf`, `fund` or `crypto`";
  }
  return guard.map((g) => code(g)).join(" or ");
}

/**
 * docs/contract.md's table of scopes: per object type, its fields grouped by what they need. `npm run schema:emit`
 * writes it between the markers; test/http/graphql/schema.spec.ts fails when the committed table differs.
 */
export function scopeTableMarkdown(schema: GraphQLSchema): string {
  const lines = ["| type | fields | needs |", "|---|---|---|"];
  const query = schema.getQueryType()?.name;
  const subscription = schema.getSubscriptionType()?.name;
  const byType = new Map<string, GuardedField[]>();
  const returnedBy = new Map<string, string[]>();
  for (const f of guardedFields(schema)) {
    if (!byType.has(f.type)) byType.set(f.type, []);
    byType.get(f.type)!.push(f);
    if (f.returns !== undefined) {
      if (!returnedBy.has(f.returns)) returnedBy.set(f.returns, []);
      returnedBy.get(f.returns)!.push(`${f.type}.${f.field}`);
    }
  }
  const rank = (t: string) => (t === query ? 0 : t === subscription ? 1 : 2);
  const types = [...byType.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const type of types) {
    const fields = byType.get(type)!;
    const groups = new Map<string, string[]>();
    for (const f of fields) {
      const need = describeGuard(f.guard, type === query || type === subscription, returnedBy.get(type) ?? []);
      if (!groups.has(need)) groups.set(need, []);
      groups.get(need)!.push(f.field);
    }
    for (const [need, names] of groups) {
      const listed = names.length === fields.length && groups.size === 1 ? "every field" : names.map(code).join(", ");
      lines.push(`| ${code(type)} | ${listed} | ${need} |`);
    }
  }
  return lines.join("\n") + "\n";
}

export const SCOPE_TABLE_BEGIN = "<!-- scope-table:begin (npm run schema:emit writes this table) -->";
export const SCOPE_TABLE_END = "<!-- scope-table:end -->";

/** `markdown` with the text between the markers replaced by the table; throws when the markers are missing. */
export function withScopeTable(markdown: string, schema: GraphQLSchema): string {
  const begin = markdown.indexOf(SCOPE_TABLE_BEGIN);
  const end = markdown.indexOf(SCOPE_TABLE_END);
  if (begin < 0 || end < begin) throw new Error("docs/contract.md lacks the scope table's markers");
  return (
    markdown.slice(0, begin + SCOPE_TABLE_BEGIN.length) +
    "\n\n" +
    scopeTableMarkdown(schema) +
    "\n" +
    markdown.slice(end)
  );
}
