import { getNamedType, isLeafType, isObjectType, type GraphQLObjectType } from "graphql";
import { getSchema } from "../../../src/http/graphql/schema";
import { guardedFields, type OwnGuard } from "../../../src/http/graphql/graphql.scopes";
import { BY_SECURITY_TYPE, SCOPE_OF_TYPE } from "../../../src/domain/instrument/instrument.access";
import type { Scope } from "../../../src/platform/auth/auth.scopes";
import type { SecurityType } from "../../../src/domain/ports/source.types";
import { createTestApp, type TestApp } from "../../helpers/app";
import { gql } from "../../helpers/graphql";
import { largestEtfSymbol } from "../../helpers/sources";
import { TEST_ANCHOR } from "../../helpers/constants";
import { dividendPayer, primarySymbols, stockWithQuarters, withDailyBars } from "../../helpers/stock-samples";

/**
 * Walks every field of every object type the schema reaches from Query, with a key of each single scope, and checks
 * the guards the contract's table is printed from (graphql.scopes.ts): a field is answered when every guard on its
 * path lets the key in, and otherwise the first guard that does not is a FORBIDDEN error at its path, with no data
 * there. The walk is read from the schema: a new root field without a call below, or a field with required
 * arguments the walk cannot give, fails it.
 */

const SINGLE_SCOPES: Scope[] = ["crypto", "etf", "fund", "stock", "dividend", "search", "bulk", "portfolio"];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface RootCall {
  args: string;
  /** The type of the security the call answers, for the fields whose scope it decides. */
  security?: SecurityType;
  /** Served only in gateway mode: over the test store, a key it lets in gets NOT_FOUND with reason NOT_AVAILABLE. */
  gatewayOnly?: true;
  /** A scope the call needs besides its guard's (a portfolio's: its positions' types' scopes). */
  alsoScope?: Scope;
}

/** How the walk calls each root field: arguments that answer data, so every field below is really resolved. */
function rootCalls(): Record<string, RootCall> {
  const db = t.source.db;
  const json = JSON.stringify;
  // A stock with every kind of stock data (four quarters, dividends, a split), so each of its lists has items.
  const rich = db
    .prepare(
      `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         WHERE s.type = 'stock' AND EXISTS (SELECT 1 FROM splits sp WHERE sp.security_id = s.id AND sp.day <= ?)
           AND EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id)
           AND (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id AND f.reported_date <= ?) >= 4
         ORDER BY s.rank, s.id LIMIT 1`,
    )
    .get(TEST_ANCHOR, TEST_ANCHOR) as { symbol: string } | undefined;
  if (!rich) throw new Error("the test store has no stock with quarters, dividends and a split");
  const stock = rich.symbol;
  const payer = dividendPayer(db, "stock").symbol;
  const etf = largestEtfSymbol(db);
  const fund = (
    db.prepare(`SELECT isin FROM securities WHERE type = 'fund' ORDER BY rank LIMIT 1`).get() as {
      isin: string;
    }
  ).isin;
  const crypto = withDailyBars(db, "crypto").symbol;
  const index = (db.prepare(`SELECT index_symbol FROM index_constituents LIMIT 1`).get() as { index_symbol: string })
    .index_symbol;
  // The latest day a quarter was reported, so the earnings calendar's window holds dates.
  const reported = db.prepare("SELECT max(reported_date) FROM quarterly_financials").pluck().get() as string;
  // The latest IPO day, so the IPO calendar's window holds offerings.
  const ipo = db.prepare("SELECT max(day) FROM ipos").pluck().get() as string;
  const addDay = (day: string, n: number) =>
    new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
  return {
    quote: { args: `symbol: ${json(stock)}`, security: "stock" },
    quotes: { args: `symbols: [${json(etf)}]`, security: "etf" },
    candle: { args: `symbol: ${json(crypto)}, resolution: "D"`, security: "crypto" },
    cryptoPrice: { args: `symbol: ${json(crypto)}` },
    fxQuote: { args: `from: "EUR", to: "JPY"` },
    dividendCalendar: { args: "limit: 3" },
    earningsCalendar: { args: `from: ${json(addDay(reported, -5))}, to: ${json(reported)}` },
    ipoCalendar: { args: `from: ${json(addDay(ipo, -30))}, to: ${json(ipo)}` },
    screener: { args: `query: [{ metric: "ebitMargin", operator: "gt", value: 0 }], limit: 2` },
    annualDividends: { args: `symbol: ${json(payer)}` },
    dividendEstimate: { args: `symbol: ${json(payer)}` },
    etf: { args: `symbol: ${json(etf)}` },
    etfs: { args: `symbols: [${json(etf)}]` },
    fund: { args: `isin: ${json(fund)}` },
    funds: { args: `isins: [${json(fund)}]` },
    indexConstituents: { args: `symbol: ${json(index)}` },
    listStocks: { args: "limit: 2" },
    listEtfs: { args: "limit: 2" },
    listFunds: { args: "limit: 2" },
    listCrypto: { args: "limit: 2" },
    search: { args: `query: ${json(primarySymbols(db, "stock", 1)[0])}, limit: 3` },
    searchAggregated: { args: `query: ${json(primarySymbols(db, "stock", 1)[0])}, limit: 3` },
    stock: { args: `symbol: ${json(stock)}` },
    stockNews: { args: `symbol: ${json(stock)}`, gatewayOnly: true },
    stockEsg: { args: `symbol: ${json(stock)}`, gatewayOnly: true },
    earningCallTranscript: { args: `symbol: ${json(stock)}`, gatewayOnly: true },
    analystEstimates: { args: `symbol: ${json(stock)}`, gatewayOnly: true },
    sentiment: { args: `symbol: ${json(stock)}`, gatewayOnly: true },
    socialSentiment: { args: `symbol: ${json(stock)}`, gatewayOnly: true },
    ipoProspectus: { args: "from: 1667260800, to: 1670371200", gatewayOnly: true },
    economicCalendar: { args: 'event: "economics", from: 1667260800', gatewayOnly: true },
    marketNews: { args: "", gatewayOnly: true },
    // A crypto position: the key needs `portfolio` and `crypto`, so no single scope reads it.
    portfolio: { args: `items: [{symbol: ${json(crypto)}, amount: 2}]`, alsoScope: "crypto" },
  };
}

/** Arguments of fields below the root; every other field below the root is called without any. */
const NESTED_ARGS: Record<string, string> = {
  // A payer's dividends over its whole history, so the list has items to walk.
  "Stock.dividends": 'from: "2000-01-01"',
};

/** The scopes that pass a guard (undefined: no guard of its own). */
function passes(step: Step, scope: Scope, security: SecurityType | undefined): boolean {
  const { guard } = step;
  if (step.alsoScope !== undefined && step.alsoScope !== scope) return false;
  if (guard === undefined || guard.length === 0) return true;
  if (guard.includes(BY_SECURITY_TYPE)) return security !== undefined && SCOPE_OF_TYPE[security] === scope;
  return guard.includes(scope);
}

interface Step {
  field: string;
  args: string;
  guard: OwnGuard;
  alsoScope?: Scope;
}

interface Probe {
  /** The fields from the root down to the object whose fields are selected. */
  path: Step[];
  /** What is selected on that object. */
  selection: string;
  /** The steps a selected field adds to the path (for one guarded field or one object field). */
  last?: Step;
  security: SecurityType | undefined;
  gatewayOnly?: true;
}

function render(path: Step[], selection: string): string {
  let body = selection;
  for (let i = path.length - 1; i >= 0; i--) {
    const s = path[i]!;
    body = `${s.field}${s.args ? `(${s.args})` : ""} { ${body} }`;
  }
  return `{ ${body} }`;
}

/** The probes of the walk: per object type (once each), its unguarded leaves together, each other field alone. */
function probes(): Probe[] {
  const schema = getSchema();
  const guards = new Map(guardedFields(schema).map((f) => [`${f.type}.${f.field}`, f.guard]));
  const calls = rootCalls();
  const query = schema.getQueryType()!;
  const out: Probe[] = [];
  const walked = new Set<string>();

  const argsOf = (type: GraphQLObjectType, name: string): string => {
    const key = `${type.name}.${name}`;
    const field = type.getFields()[name]!;
    const required = field.args.filter((a) => a.type.toString().endsWith("!") && a.defaultValue === undefined);
    if (required.length > 0 && NESTED_ARGS[key] === undefined) throw new Error(`the walk has no arguments for ${key}`);
    return NESTED_ARGS[key] ?? "";
  };

  const walk = (type: GraphQLObjectType, path: Step[], security: SecurityType | undefined) => {
    walked.add(type.name);
    const leaves: string[] = [];
    for (const field of Object.values(type.getFields())) {
      const step: Step = {
        field: field.name,
        args: argsOf(type, field.name),
        guard: guards.get(`${type.name}.${field.name}`),
      };
      if (!guards.has(`${type.name}.${field.name}`)) throw new Error(`${type.name}.${field.name} is not in the table`);
      const named = getNamedType(field.type);
      const call = `${field.name}${step.args ? `(${step.args})` : ""}`;
      if (isLeafType(named)) {
        if (step.guard === undefined) leaves.push(field.name);
        else out.push({ path, selection: call, last: step, security });
      } else if (isObjectType(named)) {
        out.push({ path, selection: `${call} { __typename }`, last: step, security });
        if (!walked.has(named.name)) walk(named, [...path, step], security);
      }
    }
    if (leaves.length > 0) out.push({ path, selection: leaves.join(" "), security });
  };

  for (const field of Object.values(query.getFields())) {
    const call = calls[field.name];
    if (!call) throw new Error(`the walk has no call for Query.${field.name}`);
    const step: Step = {
      field: field.name,
      args: call.args,
      guard: guards.get(`${query.name}.${field.name}`),
      ...(call.alsoScope ? { alsoScope: call.alsoScope } : {}),
    };
    const named0 = getNamedType(field.type);
    out.push({
      path: [],
      selection: `${field.name}${call.args ? `(${call.args})` : ""}${isLeafType(named0) ? "" : " { __typename }"}`,
      last: step,
      security: call.security,
      ...(call.gatewayOnly ? { gatewayOnly: true as const } : {}),
    });
    const named = getNamedType(field.type);
    if (isObjectType(named) && !walked.has(named.name)) walk(named, [step], call.security);
  }
  return out;
}

/** The value at `path` (field names and list indices); undefined where an ancestor is null or missing. */
function at(data: unknown, path: readonly (string | number)[]): unknown {
  let v = data;
  for (const p of path) {
    if (v === null || v === undefined) return v;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

interface GqlError {
  path?: (string | number)[];
  extensions?: { code?: string; reason?: string };
}

/** What a probe a key may read answers: data, or for a gateway-only field over the store, only NOT_AVAILABLE. */
function answered(probe: Probe, errors: readonly GqlError[]): boolean {
  if (!probe.gatewayOnly) return errors.length === 0;
  return (
    errors.length === 1 &&
    errors[0]!.extensions?.code === "NOT_FOUND" &&
    errors[0]!.extensions?.reason === "NOT_AVAILABLE"
  );
}

describe("GraphQL scopes: every field with a key of each single scope", () => {
  let all: Probe[];
  beforeAll(() => {
    all = probes();
  });

  it("reaches data under every probe with a key of every scope", async () => {
    const key = await t.apiKeys.create({
      name: "scope-walk-all",
      scopes: ["*"],
      ratePerMinute: 100_000_000,
      dailyQuota: 100_000_000,
    });
    const empty: string[] = [];
    for (const probe of all) {
      const res = await gql(t, render(probe.path, probe.selection), undefined, key.key);
      if (probe.gatewayOnly) {
        const text = render(probe.path, probe.selection);
        expect({ text, answered: answered(probe, res.body.errors ?? []) }).toEqual({ text, answered: true });
        continue;
      }
      expect({ probe: render(probe.path, probe.selection), errors: res.body.errors }).toEqual({
        probe: render(probe.path, probe.selection),
        errors: undefined,
      });
      // Each step of the path answers something, so the fields below it were really resolved.
      let v: unknown = res.body.data;
      for (const s of probe.path) {
        v = (v as Record<string, unknown>)[s.field];
        if (Array.isArray(v)) v = v[0];
        if (v === null || v === undefined) {
          empty.push(`${render(probe.path, probe.selection)}: ${s.field} is empty`);
          break;
        }
      }
    }
    expect(empty).toEqual([]);
  });

  it.each(SINGLE_SCOPES)("answers a %s key what the table lets it read, and refuses the rest", async (scope) => {
    const key = await t.apiKeys.create({
      name: `scope-walk-${scope}`,
      scopes: [scope],
      ratePerMinute: 100_000_000,
      dailyQuota: 100_000_000,
    });
    const wrong: string[] = [];
    let allowed = 0;
    let refused = 0;
    for (const probe of all) {
      const steps = probe.last ? [...probe.path, probe.last] : probe.path;
      const failing = steps.findIndex((s) => !passes(s, scope, probe.security));
      const text = render(probe.path, probe.selection);
      const res = await gql(t, text, undefined, key.key);
      const errors = (res.body.errors ?? []) as GqlError[];
      if (failing < 0) {
        allowed++;
        if (!answered(probe, errors)) wrong.push(`${text}: expected an answer, got ${JSON.stringify(errors)}`);
        continue;
      }
      refused++;
      const expectedPath = steps.slice(0, failing + 1).map((s) => s.field);
      const forbidden = errors.filter((e) => e.extensions?.code === "FORBIDDEN");
      const where = forbidden.map((e) => (e.path ?? []).filter((p) => typeof p === "string"));
      const ok =
        forbidden.length > 0 &&
        errors.length === forbidden.length &&
        where.every((p) => JSON.stringify(p) === JSON.stringify(expectedPath)) &&
        forbidden.every((e) => at(res.body.data, e.path ?? []) == null);
      if (!ok) wrong.push(`${text}: expected FORBIDDEN at ${expectedPath.join(".")}, got ${JSON.stringify(errors)}`);
    }
    expect(wrong).toEqual([]);
    // Every key is refused somewhere; only the bulk scope reads nothing at all, and the portfolio scope nothing alone
    // (each position needs its type's scope too).
    expect(refused).toBeGreaterThan(0);
    if (scope === "bulk" || scope === "portfolio") expect(allowed).toBe(0);
    else expect(allowed).toBeGreaterThan(0);
  });

  it("lets a search key read what search shows of a stock, and nothing else of it", async () => {
    const key = await t.apiKeys.create({ name: "scope-search", scopes: ["search"] });
    const s = stockWithQuarters(t.source.db, 4);
    const res = await gql(
      t,
      `{ stock(symbol: ${JSON.stringify(s.symbol)}) { id symbol name isin exchange currency marketCapitalization
         sector industry sharesOutstanding nextEarningsDate } }`,
      undefined,
      key.key,
    );
    const stock = res.body.data.stock;
    expect(stock.symbol).toBe(s.symbol);
    expect(stock.name).toEqual(expect.any(String));
    expect(stock).toMatchObject({ sector: null, industry: null, sharesOutstanding: null, nextEarningsDate: null });
    const refused = (res.body.errors as GqlError[]).map((e) => [e.extensions?.code, e.path?.join(".")]).sort();
    expect(refused).toEqual([
      ["FORBIDDEN", "stock.industry"],
      ["FORBIDDEN", "stock.nextEarningsDate"],
      ["FORBIDDEN", "stock.sector"],
      ["FORBIDDEN", "stock.sharesOutstanding"],
    ]);
  });

  it("refuses stock(…) to a crypto key as REST does, with no data", async () => {
    const key = await t.apiKeys.create({ name: "scope-crypto", scopes: ["crypto"] });
    const s = stockWithQuarters(t.source.db, 4);
    const res = await gql(t, `{ stock(symbol: ${JSON.stringify(s.symbol)}) { name isin sector } }`, undefined, key.key);
    expect(res.body.data).toBeNull();
    expect(res.body.errors.map((e: GqlError) => [e.extensions?.code, e.path?.join(".")])).toEqual([
      ["FORBIDDEN", "stock"],
    ]);
    expect(JSON.stringify(res.body)).not.toContain(s.symbol);
  });
});
