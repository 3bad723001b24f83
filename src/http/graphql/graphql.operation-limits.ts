import type { GraphqlStage } from "./graphql.pipeline";
import {
  GraphQLError,
  getNamedType,
  isCompositeType,
  isInterfaceType,
  isInputObjectType,
  isEnumType,
  isListType,
  getNullableType,
  getIntrospectionQuery,
  isObjectType,
  Kind,
  parse,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLSchema,
  type GraphQLType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  visit,
} from "graphql";
import { getComplexity, type ComplexityEstimator } from "graphql-query-complexity";
import {
  DEFAULT_SPAN_SECONDS,
  RANGE_CAP_SECONDS,
  type Resolution,
  RESOLUTIONS,
} from "../../domain/candle/candle.service";
import type { GraphqlLimitsConfig } from "../../platform/config";
import { RetryLaterError } from "../../platform/errors";
import { fragmentsOf } from "../../platform/quotas/quota.cost";
import { HEAVY_COST, heavyGate } from "../../platform/quotas/quota.heavy";
import type { Context } from "../http.context";
import { admissionRefusal } from "./graphql.errors";
import { PEERS_DEFAULT } from "../../domain/stock/stock.answers";

/**
 * Limits on what a client operation of /graphql may ask, all enforced after
 * parsing and validation and BEFORE execution, so a refused operation runs no
 * resolver and touches no store:
 *
 * - tokens: `parse(…, { maxTokens })` (Apollo's `parseOptions`, see `graphqlParseOptions`);
 * - depth: the deepest field, counting the root fields as 1;
 * - aliases: aliased fields, counted once per use (a fragment spread twice counts twice);
 * - root fields: fields of the root selection, fragments expanded;
 * - cost: graphql-query-complexity with the estimator below.
 *
 * Nothing is exempt by name: a fragment, alias or operation called `__schema`
 * or `IntrospectionQuery` is measured like any other (a known bypass of
 * limiters that skip "introspection" by looking at names). Introspection
 * itself is measured and costed too, with list sizes taken from this schema.
 *
 * The REST door and bulk execute fixed operations straight against the
 * schema, never through Apollo, so these limits apply to /graphql only.
 */

/** The shape of an operation, fragments expanded. */
export interface OperationShape {
  depth: number;
  aliases: number;
  rootFields: number;
}

export type LimitReason = "QUERY_TOO_DEEP" | "TOO_MANY_ALIASES" | "TOO_MANY_ROOT_FIELDS" | "QUERY_TOO_COSTLY";

/** Apollo's parse options for the token limit. */
export function graphqlParseOptions(limits: GraphqlLimitsConfig): { maxTokens: number } {
  return { maxTokens: limits.maxTokens };
}

/**
 * Measures the selected operation; fragments are measured once each (memoised), so a fragment bomb costs linear time.
 */
export function measureOperation(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): OperationShape {
  const memo = new Map<string, { depth: number; aliases: number; fields: number }>();
  const visiting = new Set<string>();

  function measureSet(set: SelectionSetNode): { depth: number; aliases: number; fields: number } {
    let depth = 0;
    let aliases = 0;
    let fields = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const sub = sel.selectionSet ? measureSet(sel.selectionSet) : { depth: 0, aliases: 0, fields: 0 };
        depth = Math.max(depth, 1 + sub.depth);
        aliases += (sel.alias ? 1 : 0) + sub.aliases;
        fields += 1;
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const sub = measureSet(sel.selectionSet);
        depth = Math.max(depth, sub.depth);
        aliases += sub.aliases;
        fields += sub.fields;
      } else {
        const sub = measureFragment(sel.name.value);
        depth = Math.max(depth, sub.depth);
        aliases += sub.aliases;
        fields += sub.fields;
      }
    }
    return { depth, aliases, fields };
  }

  function measureFragment(name: string): { depth: number; aliases: number; fields: number } {
    const known = memo.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    // Unknown or cyclic fragments fail validation before this runs; measure them as empty rather than loop.
    if (!fragment || visiting.has(name)) return { depth: 0, aliases: 0, fields: 0 };
    visiting.add(name);
    const m = measureSet(fragment.selectionSet);
    visiting.delete(name);
    memo.set(name, m);
    return m;
  }

  const root = measureSet(operation.selectionSet);
  return { depth: root.depth, aliases: root.aliases, rootFields: root.fields };
}

const EXPECTED = {
  holdings: 50,
  exposures: 10,
  listings: 3,
  dividends: 40,
  years: 20,
  quarters: 4,
  constituents: 50,
  estimates: 12,
  /** A year of daily closes: what one year of a metrics series holds. */
  metricsPoints: 252,
  defaultPage: 100,
  earnings: 1_000,
  ipos: 200,
};

/**
 * The unit of cost: about 10 µs of CPU, main thread and worker threads
 * together, as measured on the full sample store (BENCHMARKS.md "Operation
 * prices", `BENCH_ONLY=pricing npm run bench`): there the ETF-metrics, candle
 * and bulk shapes took 7.3 to 11.8 µs of CPU per unit on a shared two-core
 * machine, and the default limit of 10,000 admits about 100 ms of CPU (32
 * aliased ten-year ETF metrics in JPY, priced 9,645, took 112 ms).
 */
export const COST_UNIT = {
  /** What every operation costs before its fields (parse, key, limits, execution, answer): once per bulk call too. */
  operation: 100,
  /** Each item of a bulk call beyond its fields (its own execution and its part of the answer). */
  bulkItem: 2,
  /** A candle field's own work before its bars (the listing, its coverage, the answer's frame). */
  candleField: 50,
  /** Calendar days of daily bars read per unit (W and M read the daily bars of their span too). */
  daysRead: 6,
  /** Five-minute slots of a span per unit (intraday bars are stored at 5 minutes; markets fill few of them). */
  intradaySlotsRead: 80,
  /** Bars converted into another currency cost this many times their reading. */
  convertedBars: 3,
  /** An ETF metrics field's own work before its closes (its job's share of the worker round trip). */
  metricsField: 30,
  /** Daily closes read and computed over in a worker per unit. */
  closesComputed: 10,
  /**
   * Calendar days of exchange rates per unit, for ETF metrics in another currency: once per operation and currency,
   * for the longest range asked in it (the worker job of a request loads a currency's rates once for all its metrics).
   */
  conversionDays: 8,
  /** Series points answered per unit. */
  seriesPoints: 4,
  /** Trading days in a calendar year, for the closes a range holds. */
  tradingDaysPerYear: 252,
};

const PERIOD_SECONDS: Record<Resolution, number> = {
  "1": 60,
  "5": 300,
  "15": 900,
  "30": 1_800,
  "60": 3_600,
  D: 86_400,
  W: 7 * 86_400,
  M: 30 * 86_400,
};

function resolutionOf(raw: unknown): Resolution {
  const r = typeof raw === "string" ? raw.trim().toUpperCase() : "D";
  return (RESOLUTIONS as readonly string[]).includes(r) ? (r as Resolution) : "D";
}

/** Seconds a range argument set covers: explicit from/to, else the defaults of the field, never more than the cap. */
function spanSeconds(args: Record<string, unknown>, resolution: Resolution, defaultSpan: number, now: number): number {
  const to = typeof args.to === "number" ? args.to : now;
  const from = typeof args.from === "number" ? args.from : to - defaultSpan;
  return Math.min(Math.max(0, to - from), RANGE_CAP_SECONDS[resolution]);
}

const positiveInt = (v: unknown, fallback: number) =>
  typeof v === "number" && Number.isInteger(v) && v > 0 ? v : fallback;
const lengthOf = (v: unknown) => (Array.isArray(v) ? Math.max(1, v.length) : 1);

type CostOf = (args: Record<string, unknown>, child: number, nowSeconds: number) => number;
const list =
  (n: number): CostOf =>
  (_args, child) =>
    n * (1 + child);
const page =
  (defaultLimit: number): CostOf =>
  (args, child) =>
    1 + positiveInt(args.limit, defaultLimit) * child;

/**
 * Costs of the fields whose answers grow: pages by their `limit`, lists by
 * the number of keys, ranges by the bars or points they span, fixed lists by
 * the size they usually have. Every other object field costs 1 plus its
 * children; scalars cost nothing. The cost approximates the number of
 * objects an answer holds.
 */
function fieldCosts(searchDefault: number): Record<string, CostOf> {
  // Read, converted where a currency is asked (the listing's own may be asked: priced as a conversion anyway).
  const candles: CostOf = (args, _child, now) => {
    const r = resolutionOf(args.resolution);
    const span = spanSeconds(args, r, DEFAULT_SPAN_SECONDS[r], now);
    const intraday = PERIOD_SECONDS[r] < 86_400;
    const read = intraday ? span / 300 / COST_UNIT.intradaySlotsRead : span / 86_400 / COST_UNIT.daysRead;
    const converted = typeof args.currency === "string" ? COST_UNIT.convertedBars : 1;
    return COST_UNIT.candleField + Math.ceil(read * converted);
  };
  return {
    "Query.listStocks": page(EXPECTED.defaultPage),
    "Query.listEtfs": page(EXPECTED.defaultPage),
    "Query.listFunds": page(EXPECTED.defaultPage),
    "Query.listCrypto": page(EXPECTED.defaultPage),
    "Query.search": page(searchDefault),
    "Query.searchAggregated": page(searchDefault),
    "Query.dividendCalendar": page(EXPECTED.defaultPage),
    "Query.candle": candles,
    "Stock.candles": candles,
    // Each peer is a stock whose own fields (peers of peers included) are priced as its children.
    "Stock.peers": page(PEERS_DEFAULT),
    "Stock.peersWidget": page(PEERS_DEFAULT),
    // Up to EARNINGS_MAX_ROWS dates; a window of the sample's size holds about a fifth of that.
    "Query.earningsCalendar": list(EXPECTED.earnings),
    // Up to IPO_MAX_ROWS offerings; a window holds a few dozen (the full sample's two years hold ~3,000).
    "Query.ipoCalendar": list(EXPECTED.ipos),
    // The closes a worker reads and computes over (a conversion is priced once per operation: metricsConversions),
    // plus the answer: the
    // series' points where it is asked (the range and resolution say how many), the other figures a few objects.
    "Etf.metrics": (args, child, now) => {
      const r = resolutionOf(args.resolution);
      const days = spanSeconds(args, "D", 366 * 86_400, now) / 86_400;
      const closes = Math.ceil((days * COST_UNIT.tradingDaysPerYear) / 365);
      const periods = Math.max(1, r === "M" ? days / 30 : r === "W" ? days / 7 : closes);
      // `child` prices the series as a year of daily points (EtfMetrics.series), scaled here to the points the range
      // holds; the few other objects (drawdown, best and worst period) scale with it, a rounding error beside it.
      const answer = Math.ceil((child * periods) / EXPECTED.metricsPoints / COST_UNIT.seriesPoints);
      return COST_UNIT.metricsField + Math.ceil(closes / COST_UNIT.closesComputed) + answer + 1;
    },
    "EtfMetrics.series": list(EXPECTED.metricsPoints),
    // A portfolio is priced as the ETF metrics of each of its items over its range (their closes read, converted and
    // computed over), one conversion of the range per call, and its daily points answered once.
    "Query.portfolio": (args, child, now) => {
      const items = lengthOf(args.items);
      const days = spanSeconds(args, "D", 366 * 86_400, now) / 86_400;
      const closes = Math.ceil((days * COST_UNIT.tradingDaysPerYear) / 365);
      const perItem = Math.ceil(closes / COST_UNIT.closesComputed);
      const conversion = Math.ceil(days / COST_UNIT.conversionDays);
      const answer = Math.ceil(closes / COST_UNIT.seriesPoints);
      return COST_UNIT.metricsField + items * perItem + conversion + answer + child;
    },
    // A share per symbol held. Sectors and regions are a handful of shares, but reach them by reading the holdings
    // of the funds held, priced as one fund's holdings (`EtfHoldings.holdings`); the root prices the items.
    "Portfolio.allocation": list(EXPECTED.exposures),
    "Portfolio.sectors": list(EXPECTED.holdings),
    "Portfolio.regions": list(EXPECTED.holdings),
    "EtfHoldings.holdings": list(EXPECTED.holdings),
    "FundHoldings.holdings": list(EXPECTED.holdings),
    "Etf.sectorExposure": list(EXPECTED.exposures),
    "Etf.countryExposure": list(EXPECTED.exposures),
    "Fund.sectors": list(EXPECTED.exposures),
    "Fund.countries": list(EXPECTED.exposures),
    "Fund.allocationExposure": list(EXPECTED.exposures),
    "AssetListItem.listings": list(EXPECTED.listings),
    "SearchGroup.listings": list(EXPECTED.listings),
    "Stock.dividends": list(EXPECTED.dividends),
    "AnnualDividends.years": list(EXPECTED.years),
    "DividendEstimate.dividends": list(EXPECTED.estimates),
    "FinancialsTtm.quarters": list(EXPECTED.quarters),
    "StockFundamentals.years": list(EXPECTED.years),
    "IndexConstituents.constituents": list(EXPECTED.constituents),
    // Page wrappers: their limit is counted on the root field above.
    "AssetListPage.results": (_a, child) => 1 + child,
    "SearchResult.results": (_a, child) => 1 + child,
    "AggregatedSearchResult.results": (_a, child) => 1 + child,
    "DividendCalendarPage.dividends": (_a, child) => 1 + child,
  };
}

/**
 * What the ETF metrics of `document` cost for their conversions: per currency its `metrics` fields ask (literal or
 * variable; the listing's own, asked explicitly, is priced as a conversion too), a unit per COST_UNIT.conversionDays
 * of the longest range asked in it. Once per operation, since one worker job converts all of a request's metrics.
 */
export function metricsConversions(document: DocumentNode, variables: Record<string, unknown>, now: number): number {
  const longest = new Map<string, number>();
  const valueOf = (node: ValueNode | undefined): unknown =>
    node === undefined
      ? undefined
      : node.kind === Kind.VARIABLE
        ? variables[node.name.value]
        : node.kind === Kind.INT
          ? Number(node.value)
          : node.kind === Kind.STRING
            ? node.value
            : undefined;
  visit(document, {
    Field(node) {
      if (node.name.value !== "metrics" || !node.arguments?.length) return;
      const args: Record<string, unknown> = {};
      for (const a of node.arguments) args[a.name.value] = valueOf(a.value);
      if (typeof args.currency !== "string") return;
      const days = spanSeconds(args, "D", 366 * 86_400, now) / 86_400;
      const currency = args.currency.trim().toUpperCase();
      longest.set(currency, Math.max(longest.get(currency) ?? 0, days));
    },
  });
  let cost = 0;
  for (const days of longest.values()) cost += Math.ceil(days / COST_UNIT.conversionDays);
  return cost;
}

/**
 * Introspection lists are sized from this schema (averages, rounded up), so a nested introspection query costs what it
 * would return.
 */
function introspectionCosts(schema: GraphQLSchema): Record<string, CostOf> {
  const types = Object.values(schema.getTypeMap());
  const avg = (xs: number[]) => Math.max(1, Math.ceil(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)));
  const withFields = types.filter((t) => isObjectType(t) || isInterfaceType(t)) as {
    getFields(): Record<string, GraphQLField<unknown, unknown>>;
  }[];
  const fields = withFields.flatMap((t) => Object.values(t.getFields()));
  const directives = schema.getDirectives();
  // How many wrappers (non-null, list) the deepest type reference has: an `ofType` chain never returns more objects.
  const wrappers = (t: GraphQLType): number => ("ofType" in t && t.ofType ? 1 + wrappers(t.ofType as GraphQLType) : 0);
  const typeRefs = [
    ...fields.flatMap((f) => [f.type, ...f.args.map((a) => a.type)]),
    ...types.filter(isInputObjectType).flatMap((t) => Object.values(t.getFields()).map((f) => f.type)),
  ];
  const maxWrappers = Math.max(1, ...typeRefs.map(wrappers));
  return {
    "__Type.ofType": (_args, child) => Math.min(1 + child, maxWrappers),
    "__Schema.types": list(types.length),
    "__Schema.directives": list(directives.length),
    "__Type.fields": list(avg(withFields.map((t) => Object.keys(t.getFields()).length))),
    "__Type.inputFields": list(avg(types.filter(isInputObjectType).map((t) => Object.keys(t.getFields()).length))),
    "__Type.enumValues": list(avg(types.filter(isEnumType).map((t) => t.getValues().length))),
    "__Type.interfaces": list(1),
    "__Type.possibleTypes": list(1),
    "__Field.args": list(avg(fields.map((f) => f.args.length))),
    "__Directive.args": list(avg(directives.map((d) => d.args.length))),
  };
}

/** The estimator of `fieldCosts`, falling back to 1 per object field (plus children) and 0 per scalar. */
export function costEstimator(schema: GraphQLSchema, searchDefault: number): ComplexityEstimator {
  const costs = { ...fieldCosts(searchDefault), ...introspectionCosts(schema) };
  return ({ type, field, args, childComplexity, context }) => {
    const now = Math.floor(((context as Context | undefined)?.clock?.now() ?? new Date()).getTime() / 1000);
    const special = costs[`${type.name}.${field.name}`];
    if (special) return special(args, childComplexity, now);
    // Lists by keys (`etfs(symbols)`, `funds(isins)`, `quotes(symbols)`): one object per key.
    const keys = args.symbols ?? args.isins;
    if (Array.isArray(keys)) return lengthOf(keys) * (1 + childComplexity);
    if (!isCompositeType(getNamedType(field.type))) return 0;
    return isListType(getNullableType(field.type)) ? EXPECTED.listings * (1 + childComplexity) : 1 + childComplexity;
  };
}

function limitError(reason: LimitReason, message: string, limit: number, actual: number): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: "GRAPHQL_VALIDATION_FAILED", reason, limit, actual, http: { status: 400 } },
  });
}

export interface CheckedOperation {
  shape: OperationShape;
  cost: number;
}

/**
 * Throws a GraphQLError (400, `GRAPHQL_VALIDATION_FAILED` with `reason`,
 * `limit` and `actual`) when the operation passes a limit; otherwise answers
 * its shape and cost.
 */
export function checkOperation(
  schema: GraphQLSchema,
  limits: GraphqlLimitsConfig,
  estimator: ComplexityEstimator,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
  context: unknown,
): CheckedOperation {
  const known = analysed(document, operation);
  const { shape } = known;
  if (shape.depth > limits.maxDepth) {
    throw limitError(
      "QUERY_TOO_DEEP",
      `the operation is ${shape.depth} levels deep; at most ${limits.maxDepth} are allowed`,
      limits.maxDepth,
      shape.depth,
    );
  }
  if (shape.aliases > limits.maxAliases) {
    throw limitError(
      "TOO_MANY_ALIASES",
      `the operation uses ${shape.aliases} aliases; at most ${limits.maxAliases} are allowed`,
      limits.maxAliases,
      shape.aliases,
    );
  }
  if (shape.rootFields > limits.maxRootFields) {
    throw limitError(
      "TOO_MANY_ROOT_FIELDS",
      `the operation asks for ${shape.rootFields} root fields; at most ${limits.maxRootFields} are allowed`,
      limits.maxRootFields,
      shape.rootFields,
    );
  }
  let costs = known.costs;
  if (costs === undefined) {
    try {
      const now = Math.floor(((context as Context | undefined)?.clock?.now() ?? new Date()).getTime() / 1000);
      const split = splitCost(schema, estimator, known.single, variables ?? {}, context);
      costs = {
        data: COST_UNIT.operation + metricsConversions(known.single, variables ?? {}, now) + split.data,
        introspection: split.introspection,
      };
    } catch (e) {
      // Variables that do not coerce (execution would refuse them too) or more nodes than the library walks.
      const message = e instanceof Error ? e.message : String(e);
      throw new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT", http: { status: 400 } } });
    }
    // Apollo hands the same parsed document to every request with the same text: an operation whose cost
    // cannot change with its variables (or the clock) is costed once.
    if (!known.costVaries) known.costs = costs;
  }
  if (!Number.isFinite(costs.data) || costs.data > limits.maxCost) {
    throw limitError(
      "QUERY_TOO_COSTLY",
      `the operation costs ${costs.data}; at most ${limits.maxCost} is allowed (docs/operations.md "Limits and ` +
        `hardening")`,
      limits.maxCost,
      costs.data,
    );
  }
  const introspectionLimit = introspectionBound(schema, estimator);
  if (!Number.isFinite(costs.introspection) || costs.introspection > introspectionLimit) {
    throw limitError(
      "QUERY_TOO_COSTLY",
      `the operation's introspection costs ${costs.introspection}; at most ${introspectionLimit} is allowed, twice ` +
        `GraphiQL's introspection query of this schema (docs/operations.md "Limits and hardening")`,
      introspectionLimit,
      costs.introspection,
    );
  }
  return { shape, cost: costs.data + costs.introspection };
}

/**
 * An operation's cost in two parts: what it reads (every field but the schema's own) and its introspection
 * (`__schema` and `__type`, with all they hold). Introspection grows with the schema, about 35 a type, and is
 * read from memory; bounded by `MDG_GRAPHQL_MAX_COST` with the rest, GraphiQL's own query would stop passing once
 * the schema has some 300 types.
 */
function splitCost(
  schema: GraphQLSchema,
  estimator: ComplexityEstimator,
  query: DocumentNode,
  variables: Record<string, unknown>,
  context: unknown,
): { data: number; introspection: number } {
  let introspection = 0;
  const split: ComplexityEstimator = (a) => {
    const c = estimator(a);
    if (typeof c !== "number" || (a.field.name !== "__schema" && a.field.name !== "__type")) return c;
    introspection += c;
    return 0;
  };
  const data = getComplexity({
    schema,
    query,
    variables,
    estimators: [split],
    context: context as Record<string, unknown>,
  });
  return { data, introspection };
}

const INTROSPECTION_BOUNDS = new WeakMap<GraphQLSchema, number>();

/** Twice the introspection cost of GraphiQL's query (descriptions, deprecations and all) over this schema. */
export function introspectionBound(schema: GraphQLSchema, estimator: ComplexityEstimator): number {
  let bound = INTROSPECTION_BOUNDS.get(schema);
  if (bound === undefined) {
    const query = parse(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
    bound = 2 * splitCost(schema, estimator, query, {}, undefined).introspection;
    INTROSPECTION_BOUNDS.set(schema, bound);
  }
  return bound;
}

interface Analysed {
  shape: OperationShape;
  /** The operation with the document's fragments: only the selected operation is costed. */
  single: DocumentNode;
  /** Whether variables or the clock can change the cost (sizes, ranges, @include/@skip). */
  costVaries: boolean;
  costs?: { data: number; introspection: number };
}

const ANALYSED = new WeakMap<OperationDefinitionNode, Analysed>();
/** Arguments the cost estimator reads, and fields whose cost can depend on "now". */
const COST_ARGUMENTS = new Set(["limit", "from", "to", "resolution", "symbols", "isins"]);
const RANGE_FIELDS = new Set(["candle", "candles", "metrics"]);

function analysed(document: DocumentNode, operation: OperationDefinitionNode): Analysed {
  let known = ANALYSED.get(operation);
  if (known) return known;
  const fragments = fragmentsOf(document);
  const single: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...fragments.values()] };
  let costVaries = false;
  visit(single, {
    Field(node) {
      // A range with a start and no end ends "now": its length changes with the clock.
      const args = new Set(node.arguments?.map((a) => a.name.value));
      if (RANGE_FIELDS.has(node.name.value) && args.has("from") && !args.has("to")) costVaries = true;
      // A currency prices only a range's conversion: a quote's `$currency` leaves its cost as it is, so it is
      // costed once, not on every request.
      const currency = node.arguments?.find((a) => a.name.value === "currency");
      if (currency && RANGE_FIELDS.has(node.name.value) && hasVariable(currency.value)) costVaries = true;
    },
    Argument(node) {
      if (COST_ARGUMENTS.has(node.name.value) && hasVariable(node.value)) costVaries = true;
    },
    Directive(node) {
      if (node.arguments?.some((a) => hasVariable(a.value))) costVaries = true;
    },
  });
  known = { shape: measureOperation(operation, fragments), single, costVaries };
  ANALYSED.set(operation, known);
  return known;
}

function hasVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(hasVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((f) => hasVariable(f.value));
  return false;
}

export interface GraphqlLimitsOptions {
  schema: GraphQLSchema;
  limits: GraphqlLimitsConfig;
  /** Default search page, for the cost of search fields. */
  searchDefault: number;
}

/**
 * The limits on every operation of /graphql, as a stage of every request: depth, aliases, root fields and cost
 * checked before execution (the refusal thrown, no side effect), then a heavy operation holds one of the key's heavy
 * slots until its answer is known. A promise only for a heavy operation.
 */
export function limitsStage(opts: GraphqlLimitsOptions): GraphqlStage<(() => void) | undefined> {
  const estimator = costEstimator(opts.schema, opts.searchDefault);
  return {
    willExecute({ document, operation, variables, context }) {
      const checked = checkOperation(opts.schema, opts.limits, estimator, document, operation, variables, context);
      return holdsHeavySlot(context, checked.cost) ? holdHeavySlot(context, checked.cost) : undefined;
    },
    didAnswer(release) {
      release?.();
    },
  };
}

/** Whether the operation takes one of the key's heavy slots. */
function holdsHeavySlot(ctx: Context, cost: number): boolean {
  return cost >= HEAVY_COST && !!ctx.principal;
}

/**
 * A slot of the key's heavy operations and one of the process's
 * (quota.heavy.ts) for an operation priced at HEAVY_COST or more, released
 * when its answer is sent. A key already running MDG_MAX_HEAVY_PER_KEY of
 * them gets 403 FORBIDDEN, reason QUOTA_EXCEEDED, with `Retry-After`, as a
 * spent rate limit does; an operation that waited MDG_HEAVY_QUEUE_MS for the
 * process's capacity gets 500 BUSY with `Retry-After`.
 */
async function holdHeavySlot(ctx: Context, cost: number): Promise<(() => void) | undefined> {
  const principal = ctx.principal;
  if (!principal || !holdsHeavySlot(ctx, cost)) return undefined;
  try {
    return await heavyGate(ctx.config).acquire(principal.keyId);
  } catch (e) {
    if (e instanceof RetryLaterError) throw admissionRefusal(e);
    throw e;
  }
}

/**
 * The cost of `document`'s fields under the cost model, without the operation's own (COST_UNIT.operation): bulk
 * prices its items with it, and a REST call adds the operation's part once, as /graphql does.
 */
export function fieldsCost(
  schema: GraphQLSchema,
  estimator: ComplexityEstimator,
  document: DocumentNode,
  variables: Record<string, unknown>,
  context: Context,
): number {
  const ctx = context as unknown as Record<string, unknown>;
  return getComplexity({ schema, query: document, variables, estimators: [estimator], context: ctx });
}
