import {
  GraphQLError,
  Kind,
  OperationTypeNode,
  parse,
  type DocumentNode,
  type ParseOptions,
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type InlineFragmentNode,
  type SelectionSetNode,
} from "graphql";
import { Parser } from "graphql/language/parser";
import { LRUCache } from "lru-cache";

/**
 * Bounds on the shape of a parsed document, checked in one walk BEFORE
 * `validate()` runs. graphql-js's OverlappingFieldsCanBeMerged rule compares
 * every pair of fields that share a response name in one selection set (the
 * sets of fragments and same-named fields merged into it, and again in their
 * merged sub-selections), so its time grows with the square of same-named
 * siblings: 1,240 copies of one field, under the token limit, cost hundreds
 * of milliseconds of CPU. Rules added to `validate()` run beside it, too late; the
 * limits of graphql.operation-limits.ts run after it.
 *
 * The walk merges selection sets as execution (and that rule) does: a field's
 * inline fragments and spread fragments join its set, and fields of one set
 * that share a response name have their sub-selections merged into one. In
 * each merged set it counts
 *
 * - the most fields sharing one response name, or one field name (aliased copies of a field);
 * - its fields;
 * - the fragment spreads met while expanding it (nested spreads included);
 *
 * and, over the whole document, the fields after fragments are expanded
 * (every operation, and every fragment no operation spreads: validation
 * visits those too). That total is computed first from each fragment's own
 * total, memoised (a fragment spread many times is counted, not walked, so a
 * fragment bomb costs linear time); the merged walk then visits at most that
 * many fields, and stops at the first count that passes its bound. A spread
 * of an unknown fragment, or one that comes back to a fragment being
 * expanded, is not followed (validation refuses both). Before the walk, the
 * parse itself stops at a selection set that passes a bound as written
 * (`parseBounded`).
 */

// graphql's `Kind` is read through two module getters on every access: the walk reads these once.
const FIELD = Kind.FIELD;
const INLINE_FRAGMENT = Kind.INLINE_FRAGMENT;
const FRAGMENT_SPREAD = Kind.FRAGMENT_SPREAD;
const FRAGMENT_DEFINITION = Kind.FRAGMENT_DEFINITION;
const OPERATION_DEFINITION = Kind.OPERATION_DEFINITION;

export interface DocumentBounds {
  /** Fields sharing one response name or one field name in one merged selection set. */
  maxSameNameFields: number;
  /** Fields of one merged selection set. */
  maxSelectionFields: number;
  /** Fragment spreads met expanding one merged selection set. */
  maxFragmentSpreads: number;
  /** Fields of the whole document after fragments are expanded. */
  maxFields: number;
}

export type DocumentBoundReason =
  "TOO_MANY_SAME_NAME_FIELDS" | "TOO_MANY_SELECTION_FIELDS" | "TOO_MANY_FRAGMENT_SPREADS" | "TOO_MANY_FIELDS";

/** What the walk measured: the largest count of each kind, or, once a bound is passed, the count that passed it. */
export interface DocumentMeasure {
  sameNameFields: number;
  selectionFields: number;
  fragmentSpreads: number;
  fields: number;
}

/**
 * A bound passed: refused as the limits of graphql.operation-limits.ts refuse (400, same extensions). `atLeast`: the
 * count stopped where it passed the bound (`actual` is then the count so far, and the message says "at least").
 */
export function documentBoundError(
  reason: DocumentBoundReason,
  limit: number,
  actual: number,
  atLeast = false,
): GraphQLError {
  const what: Record<DocumentBoundReason, string> = {
    TOO_MANY_SAME_NAME_FIELDS: "fields of one name in one selection",
    TOO_MANY_SELECTION_FIELDS: "fields in one selection",
    TOO_MANY_FRAGMENT_SPREADS: "fragment spreads in one selection",
    TOO_MANY_FIELDS: "fields once fragments are expanded",
  };
  const count = atLeast ? `at least ${actual}` : String(actual);
  // Without a stack: nothing reads it (the error is the client's answer), and capturing one costs more than the
  // rest of a refusal's walk.
  const limitBefore = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new GraphQLError(`the document has ${count} ${what[reason]}; at most ${limit} are allowed`, {
      extensions: { code: "GRAPHQL_VALIDATION_FAILED", reason, limit, actual, http: { status: 400 } },
    });
  } finally {
    Error.stackTraceLimit = limitBefore;
  }
}

/** Counts of one selection set as written: its fields by response name and by field name, its fields, its spreads. */
class WrittenSet {
  readonly byResponse = new Map<string, number>();
  readonly byName = new Map<string, number>();
  fields = 0;
  spreads = 0;
}

/**
 * graphql-js's parser, refusing a document as soon as one selection set as written passes a bound: its own fields
 * (an inline fragment's counted with the set it sits in, as they merge into it), fields sharing a response name or a
 * field name, fragment spreads. A set as written is part of the merged set the walk checks, so whatever this refuses
 * the walk would refuse too; it stops where the count passes the bound, so a bomb of 1,240 copies costs the parse of
 * about a hundred. Shapes that only merging reveals (fragments spread many times, same-named parents) parse whole
 * and are left to the walk.
 */
class BoundedParser extends Parser {
  private readonly sets: WrittenSet[] = [];
  /** The next selection set is an inline fragment's: its fields count with the set it sits in. */
  private inline = false;

  constructor(
    source: string,
    options: ParseOptions,
    private readonly bounds: DocumentBounds,
  ) {
    super(source, options);
  }

  override parseSelectionSet(): SelectionSetNode {
    const set = this.inline ? this.sets[this.sets.length - 1]! : new WrittenSet();
    this.inline = false;
    this.sets.push(set);
    try {
      return super.parseSelectionSet();
    } finally {
      this.sets.pop();
    }
  }

  override parseFragment(): FragmentSpreadNode | InlineFragmentNode {
    const set = this.sets[this.sets.length - 1];
    // `... on T { }`, `... @dir { }`, `... { }`: the only selection set the fragment reads is its own.
    this.inline = set !== undefined;
    let node: FragmentSpreadNode | InlineFragmentNode;
    try {
      node = super.parseFragment();
    } finally {
      this.inline = false;
    }
    if (set && node.kind === FRAGMENT_SPREAD && ++set.spreads > this.bounds.maxFragmentSpreads)
      throw documentBoundError("TOO_MANY_FRAGMENT_SPREADS", this.bounds.maxFragmentSpreads, set.spreads, true);
    return node;
  }

  override parseField(): FieldNode {
    const field = super.parseField();
    const set = this.sets[this.sets.length - 1];
    if (set === undefined) return field;
    const { maxSameNameFields, maxSelectionFields } = this.bounds;
    if (++set.fields > maxSelectionFields)
      throw documentBoundError("TOO_MANY_SELECTION_FIELDS", maxSelectionFields, set.fields, true);
    const name = field.name.value;
    const byName = (set.byName.get(name) ?? 0) + 1;
    set.byName.set(name, byName);
    // Unaliased, the name is the response name: an alias elsewhere in the set may share it.
    const response = field.alias?.value ?? name;
    const byResponse = (set.byResponse.get(response) ?? 0) + 1;
    set.byResponse.set(response, byResponse);
    const same = Math.max(byName, byResponse);
    if (same > maxSameNameFields) throw documentBoundError("TOO_MANY_SAME_NAME_FIELDS", maxSameNameFields, same, true);
    return field;
  }
}

/**
 * `query` parsed as graphql-js parses it (the same options, the same document and errors), except that a selection
 * set that passes a bound as written stops the parse with the bound's refusal (a GraphQLError with the `reason`
 * extension; a syntax error has none).
 */
export function parseBounded(query: string, options: ParseOptions, bounds: DocumentBounds): DocumentNode {
  return new BoundedParser(query, options, bounds).parseDocument();
}

/** Throws the refusal (`documentBoundError`) of the first bound the document passes; answers what it measured. */
export function checkDocumentBounds(document: DocumentNode, bounds: DocumentBounds): DocumentMeasure {
  // By name, the last definition winning as in graphql-js's validation context; any other definition of a name is
  // walked on its own below (validation refuses the duplicate, but visits it first).
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const measure: DocumentMeasure = { sameNameFields: 0, selectionFields: 0, fragmentSpreads: 0, fields: 0 };

  // Fields after expansion, per fragment (memoised) and in all: linear in the document, whatever it spreads.
  const totals = new Map<string, number>();
  const counting = new Set<string>();
  const fragmentTotal = (name: string): number => {
    const known = totals.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    if (!fragment || counting.has(name)) return 0;
    counting.add(name);
    const n = setTotal(fragment.selectionSet);
    counting.delete(name);
    totals.set(name, n);
    return n;
  };
  const setTotal = (set: SelectionSetNode): number => {
    let n = 0;
    for (const sel of set.selections) {
      if (sel.kind === FIELD) n += 1 + (sel.selectionSet ? setTotal(sel.selectionSet) : 0);
      else if (sel.kind === INLINE_FRAGMENT) n += setTotal(sel.selectionSet);
      else n += fragmentTotal(sel.name.value);
    }
    return n;
  };
  // Roots: every operation, then every fragment no root reaches (validation visits unused fragments too).
  const reached = new Set<string>();
  const reach = (set: SelectionSetNode): void => {
    for (const sel of set.selections) {
      if (sel.kind !== FRAGMENT_SPREAD) {
        if (sel.selectionSet) reach(sel.selectionSet);
        continue;
      }
      const fragment = fragments.get(sel.name.value);
      if (!fragment || reached.has(fragment.name.value)) continue;
      reached.add(fragment.name.value);
      reach(fragment.selectionSet);
    }
  };
  const roots: { set: SelectionSetNode; fragment?: string }[] = [];
  let total = 0;
  for (const d of document.definitions) {
    if (d.kind !== OPERATION_DEFINITION) continue;
    roots.push({ set: d.selectionSet });
    total += setTotal(d.selectionSet);
    reach(d.selectionSet);
  }
  for (const d of document.definitions) {
    if (d.kind !== FRAGMENT_DEFINITION) continue;
    const name = d.name.value;
    if (fragments.get(name) !== d) {
      roots.push({ set: d.selectionSet });
      total += setTotal(d.selectionSet);
      continue;
    }
    if (reached.has(name)) continue;
    roots.push({ set: d.selectionSet, fragment: name });
    total += fragmentTotal(name);
    reached.add(name);
    reach(d.selectionSet);
  }
  measure.fields = total;
  if (total > bounds.maxFields) throw documentBoundError("TOO_MANY_FIELDS", bounds.maxFields, total);

  // The merged walk: each set gathered whole (bounded by the total above), then checked, then its groups' children.
  const expanding = new Set<string>();
  // Fields visited: the total above, unless fragments spread each other in a cycle (validation refuses it; the walk
  // stops at the bound all the same).
  let visited = 0;
  const walk = (sets: readonly SelectionSetNode[]): void => {
    const byResponse = new Map<string, FieldNode[]>();
    const byName = new Map<string, number>();
    let fieldCount = 0;
    let spreads = 0;
    // A set is refused as soon as a count passes its bound, so a refusal costs the walk of about the bound's fields.
    const gather = (set: SelectionSetNode): void => {
      for (const sel of set.selections) {
        if (sel.kind === FIELD) {
          if (++fieldCount > bounds.maxSelectionFields) {
            measure.selectionFields = fieldCount;
            throw documentBoundError("TOO_MANY_SELECTION_FIELDS", bounds.maxSelectionFields, fieldCount, true);
          }
          if (++visited > bounds.maxFields) throw documentBoundError("TOO_MANY_FIELDS", bounds.maxFields, visited);
          const name = sel.name.value;
          const response = sel.alias === undefined ? name : sel.alias.value;
          let group = byResponse.get(response);
          if (group) group.push(sel);
          else byResponse.set(response, (group = [sel]));
          const named = (byName.get(name) ?? 0) + 1;
          byName.set(name, named);
          const same = Math.max(group.length, named);
          if (same > bounds.maxSameNameFields) {
            measure.sameNameFields = same;
            throw documentBoundError("TOO_MANY_SAME_NAME_FIELDS", bounds.maxSameNameFields, same, true);
          }
          if (same > measure.sameNameFields) measure.sameNameFields = same;
        } else if (sel.kind === INLINE_FRAGMENT) {
          gather(sel.selectionSet);
        } else {
          spreads++;
          if (spreads > bounds.maxFragmentSpreads) break;
          const name = sel.name.value;
          const fragment = fragments.get(name);
          // A fragment that yields no field (only unknown or cyclic spreads) adds nothing to walk.
          if (!fragment || expanding.has(name) || fragmentTotal(name) === 0) continue;
          expanding.add(name);
          gather(fragment.selectionSet);
          expanding.delete(name);
        }
        if (spreads > bounds.maxFragmentSpreads) break;
      }
    };
    for (const set of sets) gather(set);
    measure.selectionFields = Math.max(measure.selectionFields, fieldCount);
    if (spreads > bounds.maxFragmentSpreads) {
      measure.fragmentSpreads = spreads;
      throw documentBoundError("TOO_MANY_FRAGMENT_SPREADS", bounds.maxFragmentSpreads, spreads, true);
    }
    measure.fragmentSpreads = Math.max(measure.fragmentSpreads, spreads);
    for (const group of byResponse.values()) {
      const children: SelectionSetNode[] = [];
      for (const field of group) if (field.selectionSet) children.push(field.selectionSet);
      if (children.length > 0) walk(children);
    }
  };
  for (const root of roots) {
    if (root.fragment !== undefined) expanding.add(root.fragment);
    walk([root.set]);
    if (root.fragment !== undefined) expanding.delete(root.fragment);
  }
  return measure;
}

/** Characters of query text whose verdicts the gate keeps; the texts the pipeline or Apollo's cache hold are few. */
export const GATE_QUERY_CHARS = 2 ** 19;

/**
 * The documents of one /graphql request, checked after its key and before
 * anything validates them (the pipeline's `validate()`, Apollo's):
 * each query text is parsed once with the token limit and without
 * locations, its operation types checked (queries only: the schema has no
 * mutation, and subscriptions are not served over HTTP), then its bounds.
 * Verdicts are kept by text, bounded by the characters held.
 *
 * Apollo Server 5 has no public hook between its parse and its validate that
 * can refuse a request: a throw from `parsingDidStart`'s end or from
 * `validationDidStart` escapes its pipeline and is answered 500, logged as
 * an unexpected error; `validationRules` run inside `validate()`, beside the
 * quadratic rule; `documentStore` would skip validation altogether. So the
 * door parses the text itself, and Apollo parses it again only for a text it
 * has not seen (its document store keeps the rest): a second linear parse of
 * new texts, for a check that runs before any quadratic work.
 *
 * A text that does not parse is left to Apollo, which answers its syntax
 * error (or the token limit) as it always did.
 */
export class DocumentGate {
  private readonly verdicts: LRUCache<string, GraphQLError | false>;

  constructor(
    private readonly parseOptions: ParseOptions,
    private readonly bounds: DocumentBounds,
    maxChars: number = GATE_QUERY_CHARS,
  ) {
    this.verdicts = new LRUCache({ maxSize: maxChars, sizeCalculation: (_v, text) => Math.max(1, text.length) });
  }

  /**
   * The refusal of the first operation of the request that is refused: a POST body (an object, or an array of them
   * when batching), or a GET's query string. Null when every text passes, or for a request with no text (a persisted
   * query's hash alone names a text that passed when it was registered).
   */
  requestRefusal(method: string | undefined, body: unknown, search: string): GraphQLError | null {
    if (method === "GET" || method === "HEAD") {
      const query = search ? new URLSearchParams(search).get("query") : null;
      return query ? this.refusal(query) : null;
    }
    for (const item of Array.isArray(body) ? (body as unknown[]) : [body]) {
      const query = typeof item === "object" && item !== null ? (item as { query?: unknown }).query : undefined;
      const refused = typeof query === "string" && query !== "" ? this.refusal(query) : null;
      if (refused) return refused;
    }
    return null;
  }

  /** The refusal of one query text, or null. */
  refusal(query: string): GraphQLError | null {
    const known = this.verdicts.get(query);
    if (known !== undefined) return known || null;
    return this.check(query) ?? null;
  }

  /**
   * Parses `query`, checks it and keeps the verdict: its refusal, or null with the parsed document (none when it does
   * not parse). The pipeline (graphql.pipeline.ts) takes its documents from here, so a text is checked before
   * anything validates it.
   */
  inspect(query: string): { refusal: GraphQLError | null; document?: DocumentNode } {
    const refusal = this.check(query);
    if (refusal) return { refusal };
    if (refusal === undefined) return { refusal: null };
    // Parsed again, with locations, for the pipeline to validate and run: its errors name where in the text they
    // are, as Apollo's do. Once per text that passes (the pipeline keeps its verdict by text).
    return { refusal: null, document: parse(query, this.parseOptions) };
  }

  /** The verdict on `refusal`'s and `inspect`'s text, kept: undefined when the text does not parse. */
  private check(query: string): GraphQLError | null | undefined {
    let document: DocumentNode;
    try {
      // Without locations: every token of a document with locations stays linked to it (a 30 KB text of 5,000
      // tokens: 1.8 MB of heap, against 0.8 MB without). The checks read no location, and a text refused here (each
      // bomb new) costs about a third of the CPU of a parse with them, garbage collection included.
      document = parseBounded(query, { ...this.parseOptions, noLocation: true }, this.bounds);
    } catch (e) {
      // A selection set that passed a bound as written; else a syntax error (or the token limit), Apollo answers it.
      const refusal = e instanceof GraphQLError && e.extensions.reason !== undefined ? e : undefined;
      if (query.length <= GATE_QUERY_CHARS / 2) this.verdicts.set(query, refusal ?? false);
      return refusal;
    }
    const refusal = operationTypeRefusal(document) ?? boundsRefusal(document, this.bounds);
    if (query.length <= GATE_QUERY_CHARS / 2) this.verdicts.set(query, refusal ?? false);
    return refusal;
  }
}

/** A mutation or subscription anywhere in the document: the client's mistake, 400 `BAD_REQUEST`. */
export function operationTypeRefusal(document: DocumentNode): GraphQLError | null {
  for (const d of document.definitions) {
    if (d.kind !== OPERATION_DEFINITION || d.operation === OperationTypeNode.QUERY) continue;
    const message =
      d.operation === OperationTypeNode.MUTATION
        ? "mutations are not served: the schema has queries only"
        : "subscriptions are not served over HTTP";
    return new GraphQLError(message, { extensions: { code: "BAD_REQUEST", http: { status: 400 } } });
  }
  return null;
}

function boundsRefusal(document: DocumentNode, bounds: DocumentBounds): GraphQLError | null {
  try {
    checkDocumentBounds(document, bounds);
    return null;
  } catch (e) {
    if (e instanceof GraphQLError) return e;
    throw e;
  }
}
