import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import { GATEWAY_KEY, gatewayPerSuite } from "../../helpers/gateway";
import { gql } from "../../helpers/graphql";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/**
 * The Bavest Python SDK's `Screener` model (bavest/finance/models/v0/screener/screener.py at Bavest/python-sdk
 * d6e4d7ab211b5a57e7bf491bed4493452c8552a8): `statusCode: int`, `results: List[ScreenerItem]`, each item `symbol:
 * str`, `name: str`, `isin: str` and the queried metric's value (`float`) under its name.
 */
function expectScreenerModel(body: Record<string, unknown>, metrics: string[]) {
  expect(Object.keys(body).sort()).toEqual(["results", "statusCode"]);
  expect(body.statusCode).toBe(200);
  for (const r of body.results as Record<string, unknown>[]) {
    expect(Object.keys(r).sort()).toEqual(["isin", "name", "symbol", ...metrics].sort());
    expect(typeof r.symbol).toBe("string");
    expect(typeof r.name).toBe("string");
    for (const m of metrics) expect(typeof r[m]).toBe("number");
  }
}

interface Row {
  id: number;
  symbol: string;
  revenue: number;
  operating_income: number;
  net_income: number;
  total_assets: number;
  total_equity: number;
  total_debt: number;
}

type Figures = Record<"debtToEquityRatio" | "returnOnEquity" | "ebitMargin" | "equityRatio", number | null>;

let computed: Map<string, Figures> | undefined;
/** Each stock's financial metrics computed here from the last four quarters reported by the anchor. */
function storedMetrics(): Map<string, Figures> {
  if (computed) return computed;
  const rows = t.source.db
    .prepare(
      `SELECT s.id, l.symbol, f.revenue, f.operating_income, f.net_income, f.total_assets, f.total_equity,
              f.total_debt
       FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       JOIN quarterly_financials f ON f.security_id = s.id AND f.reported_date <= ?
       WHERE s.type = 'stock' ORDER BY s.id, f.period_end`,
    )
    .all(TEST_ANCHOR) as Row[];
  const bySecurity = new Map<number, Row[]>();
  for (const r of rows) bySecurity.set(r.id, [...(bySecurity.get(r.id) ?? []), r]);
  // Six decimals, as the contract rounds the ratios (equal values then rank by symbol).
  const div = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1e6) / 1e6 : null);
  computed = new Map();
  for (const qs of bySecurity.values()) {
    if (qs.length < 4) continue;
    const last = qs.slice(-4);
    const b = last[3]!;
    const sum = (k: keyof Row) => last.reduce((s, q) => s + (q[k] as number), 0);
    computed.set(b.symbol, {
      debtToEquityRatio: div(b.total_debt, b.total_equity),
      returnOnEquity: div(sum("net_income"), b.total_equity),
      ebitMargin: div(sum("operating_income"), sum("revenue")),
      equityRatio: div(b.total_equity, b.total_assets),
    });
  }
  return computed;
}

/** A threshold halfway between two neighbouring values of the metric, near the given quantile: no value sits on it. */
function threshold(metric: keyof Figures, quantile: number): number {
  const values = [...new Set([...storedMetrics().values()].flatMap((f) => (f[metric] == null ? [] : [f[metric]])))];
  values.sort((a, b) => a - b);
  const i = Math.min(values.length - 2, Math.floor(values.length * quantile));
  return (values[i]! + values[i + 1]!) / 2;
}

const meets = (x: number | null, op: string, v: number) =>
  x != null && (op === "lt" ? x < v : op === "gt" ? x > v : op === "lte" ? x <= v : op === "gte" ? x >= v : x === v);

/** The symbols meeting every condition, in the contract's order: by `by` (asc or desc), ties by symbol likewise. */
function expectedSymbols(
  conditions: { metric: keyof Figures; operator: string; value: number }[],
  by: keyof Figures,
  order: "asc" | "desc",
): string[] {
  const dir = order === "asc" ? 1 : -1;
  return [...storedMetrics().entries()]
    .filter(([, f]) => conditions.every((c) => meets(f[c.metric], c.operator, c.value)) && f[by] != null)
    .sort(([a, x], [b, y]) => (x[by]! - y[by]! || (a < b ? -1 : 1)) * dir)
    .map(([s]) => s);
}

describe.each(["v0", "v1"])("POST /%s/screener", (v) => {
  it("answers what client.stock.screener(query_items) posts, filtered as the stored quarters say", async () => {
    const query = [
      { metric: "returnOnEquity" as const, operator: "gt", value: threshold("returnOnEquity", 0.5) },
      { metric: "debtToEquityRatio" as const, operator: "lte", value: threshold("debtToEquityRatio", 0.7) },
    ];
    const res = await t.post(`/${v}/screener`, { query, offset: 0, limit: 1000 });
    expect(res.status).toBe(200);
    expectScreenerModel(res.body, ["returnOnEquity", "debtToEquityRatio"]);
    const want = expectedSymbols(query, "returnOnEquity", "asc");
    expect(want.length).toBeGreaterThan(3);
    // Default order: the narrowest condition's metric, ascending. Compare as sets, then check the order.
    const got = (res.body.results as { symbol: string }[]).map((r) => r.symbol);
    expect([...got].sort()).toEqual([...want].sort());
    const figures = storedMetrics();
    for (const r of res.body.results as Record<string, number & string>[]) {
      const f = figures.get(r.symbol)!;
      expect(Math.abs(r.returnOnEquity - f.returnOnEquity!)).toBeLessThan(1e-5);
      expect(Math.abs(r.debtToEquityRatio - f.debtToEquityRatio!)).toBeLessThan(1e-5);
    }
  });

  it("sorts by a sort item, and pages with offset and limit", async () => {
    const query = [{ metric: "ebitMargin" as const, operator: "gte", value: threshold("ebitMargin", 0.2) }];
    const sort = [{ metric: "equityRatio", order: "desc" }];
    const want = expectedSymbols(query, "equityRatio", "desc");
    expect(want.length).toBeGreaterThan(20);
    const all = await t.post(`/${v}/screener`, { query, sort, limit: 1000 });
    expect(all.status).toBe(200);
    expectScreenerModel(all.body, ["ebitMargin", "equityRatio"]);
    expect((all.body.results as { symbol: string }[]).map((r) => r.symbol)).toEqual(want.slice(0, 1000));
    const page = await t.post(`/${v}/screener`, { query, sort, offset: 5, limit: 7 });
    expect((page.body.results as { symbol: string }[]).map((r) => r.symbol)).toEqual(want.slice(5, 12));
    const asc = await t.post(`/${v}/screener`, { query, sort: [{ metric: "equityRatio", order: "asc" }], limit: 5 });
    expect((asc.body.results as { symbol: string }[]).map((r) => r.symbol)).toEqual(
      expectedSymbols(query, "equityRatio", "asc").slice(0, 5),
    );
    // A condition every stock with the metric meets walks the sort column: the same order.
    const wide = [{ metric: "ebitMargin" as const, operator: "gt", value: -1e12 }];
    const walked = await t.post(`/${v}/screener`, { query: wide, sort, offset: 3, limit: 10 });
    expect((walked.body.results as { symbol: string }[]).map((r) => r.symbol)).toEqual(
      expectedSymbols(wide, "equityRatio", "desc").slice(3, 13),
    );
    // Two keys over a wide match: ordered by the first, then the second where the first is equal.
    const two = await t.post(`/${v}/screener`, {
      query: wide,
      sort: [
        { metric: "debtToEquityRatio", order: "asc" },
        { metric: "equityRatio", order: "desc" },
      ],
      limit: 40,
    });
    const rows = two.body.results as { symbol: string; debtToEquityRatio: number; equityRatio: number }[];
    const figures = storedMetrics();
    const wantTwo = [...figures.entries()]
      .filter(([, f]) => f.ebitMargin != null && f.debtToEquityRatio != null && f.equityRatio != null)
      .sort(
        ([a, x], [b, y]) =>
          x.debtToEquityRatio! - y.debtToEquityRatio! || y.equityRatio! - x.equityRatio! || (a < b ? -1 : 1),
      )
      .slice(0, 40)
      .map(([sym]) => sym);
    expect(rows.map((r) => r.symbol)).toEqual(wantTwo);
  });

  it("answers price metrics as stock/metric computes them", async () => {
    const res = await t.post(`/${v}/screener`, {
      query: [{ metric: "priceEarningsRatio", operator: "gt", value: 0 }],
      sort: [{ metric: "priceEarningsRatio", order: "asc" }],
      limit: 3,
    });
    expect(res.status).toBe(200);
    for (const r of res.body.results as { symbol: string; priceEarningsRatio: number }[]) {
      const m = await t.post(`/${v}/stock/metric`, { symbol: r.symbol });
      expect(r.priceEarningsRatio).toBe(m.body.peRatio);
    }
  });

  it("refuses an unknown metric or operator, a metric the store cannot compute, and bad paging", async () => {
    const ok = { metric: "ebitMargin", operator: "gt", value: 0 };
    const cases: [unknown, string][] = [
      [{ query: [{ ...ok, metric: "bogus" }] }, "query[0].metric"],
      [{ query: [{ ...ok, operator: "ne" }] }, "query[0].operator"],
      [{ query: [{ ...ok, metric: "currentRatio" }] }, "query[0].metric"],
      [{ query: [ok], sort: [{ metric: "nope", order: "asc" }] }, "sort[0].metric"],
      [{ query: [ok], sort: [{ metric: "ev", order: "up" }] }, "sort[0].order"],
      [{ query: [] }, "query"],
      [{ query: [ok], limit: 0 }, "limit"],
      [{ query: [ok], offset: -1 }, "offset"],
    ];
    for (const [body, field] of cases) {
      const res = await t.post(`/${v}/screener`, body);
      // Every malformed request is 404 in the contract (section 3), INVALID_ARGUMENT saying which field.
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect({ field: res.body.details?.[0]?.field }).toEqual({ field });
    }
    const bogus = await t.post(`/${v}/screener`, { query: [{ ...ok, metric: "bogus" }] });
    expect(bogus.body.message).toMatch(/unknown metric "bogus"; expected one of .*ebitMargin/);
    const held = await t.post(`/${v}/screener`, { query: [{ ...ok, metric: "currentRatio" }] });
    expect(held.body.message).toMatch(/not computed: the store holds no current assets/);
  });

  it("needs the stock scope", async () => {
    const dividendOnly = await t.apiKeys.create({ name: `screener-dividend-${v}`, scopes: ["dividend"] });
    const body = { query: [{ metric: "ebitMargin", operator: "gt", value: 0 }] };
    expectErrorBody(await t.post(`/${v}/screener`, body, dividendOnly.key), 403, "FORBIDDEN");
  });
});

describe("GraphQL Query.screener", () => {
  it("answers the stocks REST answers, each metric's value under values", async () => {
    const query = [{ metric: "ebitMargin", operator: "gt", value: threshold("ebitMargin", 0.5) }];
    const res = await gql(
      t,
      `query ($q: [ScreenerCondition!]!) { screener(query: $q, limit: 5) { symbol values { metric value } } }`,
      { q: query },
    );
    const rest = await t.post("/v1/screener", { query, limit: 5 });
    expect(res.body.data.screener).toEqual(
      (rest.body.results as { symbol: string; ebitMargin: number }[]).map((r) => ({
        symbol: r.symbol,
        values: [{ metric: "ebitMargin", value: r.ebitMargin }],
      })),
    );
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, and refuses a bad query without asking it", async () => {
    const body = {
      query: [{ metric: "ebitMargin", operator: "gt", value: 0.1 }],
      sort: [{ metric: "ev", order: "desc" }],
      offset: 2,
      limit: 5,
    };
    const direct = await gw.upstream.app.post("/v1/screener", body);
    expect(direct.status).toBe(200);
    expect(direct.body.results).toHaveLength(5);
    for (const v of ["v0", "v1"]) {
      const res = await gw.gateway.post(`/${v}/screener`, body, GATEWAY_KEY);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
    }
    const bad = await gw.gateway.post(
      "/v1/screener",
      { query: [{ metric: "bogus", operator: "gt", value: 0 }] },
      GATEWAY_KEY,
    );
    expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 404, code: "INVALID_ARGUMENT" });
  });
});
