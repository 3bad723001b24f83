import {
  GraphQLObjectType,
  GraphQLSchema,
  Kind,
  getNullableType,
  validate,
  visit,
  type DefinitionNode,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLFieldConfigMap,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from "graphql";

/**
 * One GraphQL document answering up to `size` items of one REST entry: the
 * entry's operation with its root field(s) repeated under the aliases
 * `i0_<field>`, `i1_<field>`, ... and its variables renamed `$i0_symbol`,
 * `$i1_symbol`, ...; fragments inlined. Each item's fields carry
 * `@skip(if: $p<i>)`, so one document serves every count up to its size
 * (see `sizeFor`). Executed once, all items share the request's DataLoaders,
 * so N items cost the store queries of one.
 */
export interface BulkDocument {
  document: DocumentNode;
  /** How many items the document holds; calls with fewer skip the rest. */
  size: number;
  /** The single operation's definition (its variables are what each item is coerced against). */
  operation: OperationDefinitionNode;
  /** Response keys of the operation's root fields, as the entry's `shape` reads them (`etf`, `quote`). */
  rootKeys: readonly string[];
  /** Variable names of the single operation. */
  variables: readonly string[];
  /** `aliases[item][root]`: the response key of each item's root field. */
  aliases: readonly (readonly string[])[];
  /** Which item an alias (an error's `path[0]`) belongs to. */
  itemOfAlias: ReadonlyMap<string, number>;
  /** `itemVariables[item][v]`: the name of the operation's variable `variables[v]` for that item. */
  itemVariables: readonly (readonly string[])[];
  /** `padVariables[item]`: the variable that skips that item. */
  padVariables: readonly string[];
}

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;

/** The alias of root field `rootKey` of item `index`. */
export const itemAlias = (index: number, rootKey: string) => `i${index}_${rootKey}`;

/** The renamed variable `variable` of item `index`. */
export const itemVariable = (index: number, variable: string) => `i${index}_${variable}`;

/** The variable that skips item `index` when the call has fewer items than the document (`p` never starts an item variable). */
export const padVariable = (index: number) => `p${index}`;

/** Documents come in powers of two, so at most eight per entry serve every count up to 128. */
export function sizeFor(count: number): number {
  let size = 1;
  while (size < count) size *= 2;
  return size;
}

/** The one operation of a REST entry's document, checked to be something bulk can repeat. */
export function singleOperation(document: DocumentNode): { operation: OperationDefinitionNode; fragments: FragmentDefinitionNode[] } {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const fragments = document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  const label = operations[0]?.name?.value ?? "anonymous";
  if (operations.length !== 1 || operations[0]!.operation !== "query") {
    throw new Error(`bulk: the document of ${label} must hold exactly one query`);
  }
  const operation = operations[0]!;
  if (!operation.selectionSet.selections.every((s) => s.kind === Kind.FIELD)) {
    throw new Error(`bulk: the root selections of ${label} must be fields, so each item can be aliased`);
  }
  return { operation, fragments };
}

/**
 * One item's root field: variables renamed and fragment spreads inlined (so a
 * fragment's variables are the item's too). `visit` copies only the nodes on
 * a path to a change; everything else is shared between items.
 */
function itemField(field: FieldNode, index: number, fragments: ReadonlyMap<string, FragmentDefinitionNode>): FieldNode {
  return visit(field, {
    FragmentSpread(node) {
      const fragment = fragments.get(node.name.value);
      if (!fragment) throw new Error(`bulk: unknown fragment ${node.name.value}`);
      return { kind: Kind.INLINE_FRAGMENT, typeCondition: fragment.typeCondition, directives: node.directives, selectionSet: fragment.selectionSet };
    },
    Variable: (node) => ({ ...node, name: name(itemVariable(index, node.name.value)) }),
  });
}

/** Builds the aliased document of `size` items (not validated: see `BulkDocuments`). */
export function buildBulkDocument(document: DocumentNode, size: number): BulkDocument {
  const { operation, fragments } = singleOperation(document);
  const fragmentsByName = new Map(fragments.map((f) => [f.name.value, f]));
  const roots = operation.selectionSet.selections as readonly FieldNode[];
  const rootKeys = roots.map((f) => f.alias?.value ?? f.name.value);
  const variables = (operation.variableDefinitions ?? []).map((v) => v.variable.name.value);

  const variableDefinitions: VariableDefinitionNode[] = [];
  const selections: FieldNode[] = [];
  const aliases = Array.from({ length: size }, (_, i) => rootKeys.map((key) => itemAlias(i, key)));
  const itemOfAlias = new Map(aliases.flatMap((keys, i) => keys.map((alias) => [alias, i] as const)));
  for (let i = 0; i < size; i++) {
    for (const def of operation.variableDefinitions ?? []) {
      variableDefinitions.push({ ...def, variable: { ...def.variable, name: name(itemVariable(i, def.variable.name.value)) } });
    }
    const pad = { kind: Kind.VARIABLE, name: name(padVariable(i)) } as const;
    variableDefinitions.push({
      kind: Kind.VARIABLE_DEFINITION,
      variable: pad,
      type: { kind: Kind.NON_NULL_TYPE, type: { kind: Kind.NAMED_TYPE, name: name("Boolean") } },
    });
    const skip: DirectiveNode = { kind: Kind.DIRECTIVE, name: name("skip"), arguments: [{ kind: Kind.ARGUMENT, name: name("if"), value: pad }] };
    roots.forEach((field, r) => {
      const own = itemField(field, i, fragmentsByName);
      selections.push({ ...own, alias: name(aliases[i]![r]!), directives: [...(own.directives ?? []), skip] });
    });
  }
  const bulkOperation: OperationDefinitionNode = {
    ...operation,
    name: name(`Bulk${size}_${operation.name?.value ?? "Query"}`),
    variableDefinitions,
    selectionSet: { kind: Kind.SELECTION_SET, selections },
  };
  const definitions: DefinitionNode[] = [bulkOperation];
  const itemVariables = Array.from({ length: size }, (_, i) => variables.map((v) => itemVariable(i, v)));
  const padVariables = Array.from({ length: size }, (_, i) => padVariable(i));
  return { document: { kind: Kind.DOCUMENT, definitions }, size, operation, rootKeys, variables, aliases, itemOfAlias, itemVariables, padVariables };
}

/**
 * The schema bulk executes against: the same types and resolvers, except that
 * the root query fields are nullable. A failing non-null root field nulls the
 * whole `data` of an operation; with nullable roots it nulls only its own
 * alias, so one unknown symbol never takes the other items' answers with it.
 */
export function rootNullableSchema(schema: GraphQLSchema): GraphQLSchema {
  const query = schema.getQueryType();
  if (!query) throw new Error("bulk: the schema has no query type");
  const config = query.toConfig();
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const [key, field] of Object.entries(config.fields)) fields[key] = { ...field, type: getNullableType(field.type) };
  const nullableQuery = new GraphQLObjectType({ ...config, fields });
  const schemaConfig = schema.toConfig();
  return new GraphQLSchema({
    ...schemaConfig,
    query: nullableQuery,
    types: schemaConfig.types.filter((t) => t !== query),
  });
}

/** Documents kept; each is small (items share their sub-selections), and a process sees few (entry, size) pairs. */
const MAX_CACHED = 64;

/**
 * Aliased documents per (entry, size), built and validated against the bulk
 * schema once; sizes are powers of two, and the least recently used document
 * goes first when more than MAX_CACHED are kept.
 */
export class BulkDocuments {
  private readonly cache = new Map<string, BulkDocument>();

  constructor(readonly schema: GraphQLSchema) {}

  /** The document serving `count` items of the entry whose operation is `document`. */
  get(key: string, document: DocumentNode, count: number): BulkDocument {
    const size = sizeFor(count);
    const cacheKey = `${key}\u0000${size}`;
    let doc = this.cache.get(cacheKey);
    if (doc) {
      this.cache.delete(cacheKey);
    } else {
      doc = buildBulkDocument(document, size);
      const errors = validate(this.schema, doc.document);
      if (errors.length) throw new Error(`bulk: the aliased document of ${key} does not validate: ${errors.map((e) => e.message).join("; ")}`);
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(cacheKey, doc);
    return doc;
  }
}
