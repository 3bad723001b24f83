import {
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type FieldNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";

/** The REST path of the bulk endpoint (src/http/bulk/bulk.routes.ts). */
export const BULK_PATH = "bulk";

/**
 * Units a REST call costs: 1, except bulk, which costs one per security it
 * names (a bulk of 100 costs 100), as 100 single calls would. A bulk body
 * whose `symbols` is not a list of 1 to `bulkMax` items is refused with 404
 * anyway, and costs 1 like any other malformed call.
 */
export function restCost(path: string, body: unknown, bulkMax: number): number {
  if (path !== BULK_PATH || body === null || typeof body !== "object") return 1;
  const symbols = (body as { symbols?: unknown }).symbols;
  return Array.isArray(symbols) && symbols.length >= 1 && symbols.length <= bulkMax ? symbols.length : 1;
}

/**
 * Root fields that take a list of securities (`etfs(symbols)`, `funds(isins)`, `quotes(symbols)`) cost one unit per
 * security, like bulk.
 */
const LIST_ARGUMENTS = ["symbols", "isins"];

function listLength(value: ValueNode | undefined, variables: Record<string, unknown>): number {
  if (!value) return 1;
  if (value.kind === Kind.LIST) return Math.max(1, value.values.length);
  if (value.kind === Kind.VARIABLE) {
    const v = variables[value.name.value];
    return Array.isArray(v) ? Math.max(1, v.length) : 1;
  }
  return 1;
}

/**
 * Units a /graphql operation costs against the key's rate and quota: one per
 * root field (so 50 aliased quotes cost 50, like 50 REST calls or a bulk of
 * 50), one per security for fields taking a list of `symbols` or `isins`, nothing for introspection
 * (`__schema`, `__type`, `__typename`), and at least 1 per operation.
 * Fragments at the root are expanded.
 */
export function graphqlCost(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Record<string, unknown> = {},
): number {
  let units = 0;
  for (const root of graphqlRootCosts(operation, fragments, variables).values()) units += root.units;
  return Math.max(1, units);
}

/** What one root field of an operation costs, by its response key (alias or name). */
export interface RootFieldCost {
  units: number;
  /** Costed per security (`quotes(symbols)`, …): an item refused alone gives back one unit. */
  perItem: boolean;
}

/** The units of `graphqlCost`, root field by root field (fragments expanded), so a refused field can be given back. */
export function graphqlRootCosts(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Record<string, unknown> = {},
): Map<string, RootFieldCost> {
  const roots = new Map<string, RootFieldCost>();
  for (const field of rootFields(operation, fragments)) {
    const name = field.name.value;
    if (name.startsWith("__")) continue;
    const list = field.arguments?.find((a) => LIST_ARGUMENTS.includes(a.name.value));
    const key = field.alias?.value ?? name;
    const before = roots.get(key);
    const units = list ? listLength(list.value, variables) : 1;
    roots.set(key, { units: (before?.units ?? 0) + units, perItem: !!list });
  }
  return roots;
}

/**
 * The root fields of an operation in document order, fragments expanded (a fragment is not expanded inside itself;
 * spread twice side by side, it is expanded twice).
 */
function rootFields(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): FieldNode[] {
  const fields: FieldNode[] = [];
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode): void => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) fields.push(sel);
      else if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet);
      else {
        const fragment = fragments.get(sel.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        seen.add(fragment.name.value);
        walk(fragment.selectionSet);
        seen.delete(fragment.name.value);
      }
    }
  };
  walk(operation.selectionSet);
  return fields;
}

/**
 * Whether variables can change `graphqlRootCosts` of the operation: a root field (fragments expanded) takes its list
 * of securities from a variable.
 */
export function rootCostsVary(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): boolean {
  return rootFields(operation, fragments).some(
    (field) => !!field.arguments?.some((a) => LIST_ARGUMENTS.includes(a.name.value) && a.value.kind === Kind.VARIABLE),
  );
}

/** The fragments of a document by name. */
export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const out = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) out.set(d.name.value, d);
  return out;
}
