import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { continents, countries } from "countries-list";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_STORE_PATH } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import { GATEWAY_KEY, gatewayPerSuite } from "../../helpers/gateway";
import { gql } from "../../helpers/graphql";
import { dayText, perUsd, unix, withDailyBars } from "../../helpers/stock-samples";

/**
 * portfolio/allocation, portfolio/sector and portfolio/region as the Bavest SDKs call them. The Python SDK
 * (bavest/finance/client/bavest_client.py, `Portfolio`) posts `{portfolio_items, currency}` to allocation and
 * `{portfolio_items}` to sector and region; the Dart client (lib/client/bavest_rest_client.dart) posts
 * `Portfolio.toJson()`, `{portfolio_items: [{symbol, amount, buy_date}]}` with int seconds, plus `currency` to
 * sector. The answers are the Python models' (bavest/finance/models/v0/portfolio/{allocation,sector,region}):
 *
 *   class PortfolioAllocationsItem(BaseModel): symbol: str; percentage: float
 *   class PortfolioAllocation(BaseModel): portfolio_allocations: List[PortfolioAllocationsItem]
 *   class PortfolioSectorItem(BaseModel): sector: str; percentage: float
 *   class PortfolioSector(BaseModel): portfolioSectors: List[PortfolioSectorItem]
 *   class PortfolioRegionsItem(BaseModel): region: str; percentage: float
 *   class PortfolioRegion(BaseModel): portfolio_regions: List[PortfolioRegionsItem]
 */
const MODELS = {
  "portfolio/allocation": { list: "portfolio_allocations", fields: { symbol: "string", percentage: "number" } },
  "portfolio/sector": { list: "portfolioSectors", fields: { sector: "string", percentage: "number" } },
  "portfolio/region": { list: "portfolio_regions", fields: { region: "string", percentage: "number" } },
} as const;

type Path = keyof typeof MODELS;

/** The answer's list, after checking it has exactly the model's keys and types. */
function modelList(path: Path, body: Record<string, unknown>): { name: string; percentage: number }[] {
  const m = MODELS[path];
  expect(Object.keys(body)).toEqual([m.list]);
  const list = body[m.list] as Record<string, unknown>[];
  expect(Array.isArray(list)).toBe(true);
  const [key] = Object.keys(m.fields);
  return list.map((item) => {
    expect(Object.keys(item).sort()).toEqual(Object.keys(m.fields).sort());
    for (const [k, type] of Object.entries(m.fields)) expect(typeof item[k]).toBe(type);
    return { name: item[key!] as string, percentage: item.percentage as number };
  });
}

/** The continent of an ISO 3166 alpha-2 code, read from the countries-list data itself. */
const continentOf = (code: string) => {
  const c = (countries as Record<string, { continent: string }>)[code];
  return c ? (continents as Record<string, string>)[c.continent]! : "Unknown";
};

const add = (m: Map<string, number>, k: string, w: number) => m.set(k, (m.get(k) ?? 0) + w);

/** Shares (fractions) as the answer's percentages: two decimals, none that rounds to 0. */
const asPercent = (m: Map<string, number>) =>
  Object.fromEntries([...m].map(([k, w]) => [k, Math.round(w * 1e4) / 100] as const).filter(([, pct]) => pct > 0));

const asMap = (list: { name: string; percentage: number }[]) =>
  Object.fromEntries(list.map((x) => [x.name, x.percentage]));

interface HoldingRow {
  holdingSecurityId: number | null;
  sector: string | null;
  country: string | null;
  weight: number;
  linkedType: string | null;
  linkedSector: string | null;
  linkedCountry: string | null;
}

function holdingsOf(db: Database.Database, table: "etf_holdings" | "fund_holdings", id: number): HoldingRow[] {
  const owner = table === "etf_holdings" ? "etf_id" : "fund_id";
  return db
    .prepare(
      `SELECT h.holding_security_id AS holdingSecurityId, h.sector, h.country, h.weight, s.type AS linkedType,
         s.sector AS linkedSector, s.country AS linkedCountry
       FROM ${table} h LEFT JOIN securities s ON s.id = h.holding_security_id WHERE h.${owner} = ? ORDER BY position`,
    )
    .all(id) as HoldingRow[];
}

/**
 * The sectors and regions of one fund's directly held securities (no fund among them), as fractions of `w`: a row's
 * own sector and country, else its linked security's; none and no link is Other; the rows' shortfall from 100 is
 * Unknown.
 */
function directExposure(rows: HoldingRow[], w: number, sectors: Map<string, number>, regions: Map<string, number>) {
  const total = rows.reduce((s, h) => s + h.weight, 0);
  const scale = total > 100 ? 100 / total : 1;
  if (total < 100) {
    add(sectors, "Unknown", (w * (100 - total)) / 100);
    add(regions, "Unknown", (w * (100 - total)) / 100);
  }
  for (const h of rows) {
    const x = (w * h.weight * scale) / 100;
    const none = h.holdingSecurityId == null ? "Other" : "Unknown";
    add(sectors, h.sector ?? h.linkedSector ?? none, x);
    const country = h.country ?? h.linkedCountry;
    add(regions, country ? continentOf(country) : none, x);
  }
}

describe("over the generated sample", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  const db = () => t.source.db;

  /** An ETF with quotes whose holdings are stocks and bonds, not funds. */
  function directEtf() {
    const etf = withDailyBars(db(), "etf");
    const id = db().prepare(`SELECT security_id FROM listings WHERE id = ?`).pluck().get(etf.listingId) as number;
    const rows = holdingsOf(db(), "etf_holdings", id);
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.every((h) => h.linkedType !== "etf" && h.linkedType !== "fund")).toBe(true);
    return { ...etf, id, rows };
  }

  /** The value now of `amount` of a listing in `currency`, at its quote's day's rate. */
  function valueNow(listingId: number, listingCurrency: string, amount: number, currency: string) {
    const q = db().prepare(`SELECT c, t FROM quotes WHERE listing_id = ?`).get(listingId) as { c: number; t: number };
    const day = dayText(q.t);
    return (q.c * amount * perUsd(db(), currency, day)) / perUsd(db(), listingCurrency, day);
  }

  describe.each(["v0", "v1"])("POST /%s/portfolio/allocation", (v) => {
    it("answers the Python model: each symbol's share of the value at the latest quotes, largest first", async () => {
      const stock = withDailyBars(db(), "stock");
      const etf = directEtf();
      // What the Python SDK's allocation() posts; the stock twice, as two purchases.
      const body = {
        portfolio_items: [
          { symbol: stock.symbol, amount: 10, buy_date: unix("2025-01-02") + 0.25 },
          { symbol: etf.symbol, amount: 3, buy_date: unix("2025-03-03") + 0.25 },
          { symbol: stock.symbol, amount: 5, buy_date: unix("2025-06-02") + 0.25 },
        ],
        currency: "EUR",
      };
      const res = await t.post(`/${v}/portfolio/allocation`, body);
      expect(res.status).toBe(200);
      const list = modelList("portfolio/allocation", res.body);
      const s = valueNow(stock.listingId, stock.currency, 15, "EUR");
      const e = valueNow(etf.listingId, etf.currency, 3, "EUR");
      expect(asMap(list)).toEqual({
        [stock.symbol]: Math.round((s / (s + e)) * 1e4) / 100,
        [etf.symbol]: Math.round((e / (s + e)) * 1e4) / 100,
      });
      expect(list[0]!.percentage).toBeGreaterThanOrEqual(list[1]!.percentage);
    });
  });

  describe.each(["v0", "v1"])("POST /%s/portfolio/sector and region", (v) => {
    it("gives a portfolio of one ETF the sectors and continents of that ETF's holdings", async () => {
      const etf = directEtf();
      const sectors = new Map<string, number>();
      const regions = new Map<string, number>();
      directExposure(etf.rows, 1, sectors, regions);
      // What the Python SDK's sector() and region() post: the positions alone.
      const body = { portfolio_items: [{ symbol: etf.symbol, amount: 7, buy_date: unix("2025-02-03") + 0.5 }] };
      const sector = await t.post(`/${v}/portfolio/sector`, body);
      expect(sector.status).toBe(200);
      expect(asMap(modelList("portfolio/sector", sector.body))).toEqual(asPercent(sectors));
      const region = await t.post(`/${v}/portfolio/region`, body);
      expect(region.status).toBe(200);
      expect(asMap(modelList("portfolio/region", region.body))).toEqual(asPercent(regions));
      // The same weights the ETF's own sector endpoint answers (the sample derives those from the holdings).
      const own = await t.post(`/${v}/etf/sector`, { symbol: etf.symbol });
      const ownSectors = Object.fromEntries(
        (own.body.sectorExposure as { sector: string; weightPercentage: number }[]).map((x) => [
          x.sector,
          x.weightPercentage,
        ]),
      );
      for (const [name, pct] of Object.entries(asMap(modelList("portfolio/sector", sector.body)))) {
        if (name !== "Unknown") expect(pct).toBeCloseTo(ownSectors[name]!, 1);
      }
    });

    it("weighs a stock by its value and places it by its own sector and country", async () => {
      const stock = db()
        .prepare(
          `SELECT l.id AS listingId, l.symbol, l.currency, s.sector, s.country FROM securities s
           JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 JOIN quotes q ON q.listing_id = l.id
           WHERE s.type = 'stock' AND s.country = 'US' AND s.sector IS NOT NULL ORDER BY s.rank, s.id LIMIT 1`,
        )
        .get() as { listingId: number; symbol: string; currency: string; sector: string; country: string };
      const etf = directEtf();
      const s = valueNow(stock.listingId, stock.currency, 20, "EUR");
      const e = valueNow(etf.listingId, etf.currency, 2, "EUR");
      const sectors = new Map<string, number>([[stock.sector, s / (s + e)]]);
      const regions = new Map<string, number>([["North America", s / (s + e)]]);
      directExposure(etf.rows, e / (s + e), sectors, regions);
      // The Dart client's body: int seconds, and currency on sector.
      const items = [
        { symbol: stock.symbol, amount: 20, buy_date: unix("2025-01-02") },
        { symbol: etf.symbol, amount: 2, buy_date: unix("2025-01-02") },
      ];
      const sector = await t.post(`/${v}/portfolio/sector`, { portfolio_items: items, currency: "EUR" });
      expect(sector.status).toBe(200);
      const got = asMap(modelList("portfolio/sector", sector.body));
      const want = asPercent(sectors);
      expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
      for (const k of Object.keys(want)) expect(got[k]).toBeCloseTo(want[k]!, 1);
      const region = await t.post(`/${v}/portfolio/region`, { portfolio_items: items });
      const gotRegions = asMap(modelList("portfolio/region", region.body));
      const wantRegions = asPercent(regions);
      for (const k of Object.keys(wantRegions)) expect(gotRegions[k]).toBeCloseTo(wantRegions[k]!, 1);
    });
  });

  it("looks through a fund of funds to the holdings of the ETFs it holds", async () => {
    const fund = db()
      .prepare(
        `SELECT s.id, l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         JOIN quotes q ON q.listing_id = l.id
         WHERE s.type = 'fund' AND EXISTS (SELECT 1 FROM fund_holdings h JOIN securities x
           ON x.id = h.holding_security_id AND x.type = 'etf' WHERE h.fund_id = s.id)
         ORDER BY s.rank, s.id LIMIT 1`,
      )
      .get() as { id: number; symbol: string };
    expect(fund).toBeDefined();
    const rows = holdingsOf(db(), "fund_holdings", fund.id);
    const sectors = new Map<string, number>();
    const regions = new Map<string, number>();
    const total = rows.reduce((s, h) => s + h.weight, 0);
    const scale = total > 100 ? 100 / total : 1;
    directExposure(
      rows.filter((h) => h.linkedType !== "etf"),
      1,
      sectors,
      regions,
    );
    // directExposure counted the ETFs' weight as the fund's shortfall: take it back, and spread it through them.
    const etfWeight = rows.filter((h) => h.linkedType === "etf").reduce((s, h) => s + h.weight * scale, 0) / 100;
    expect(etfWeight).toBeGreaterThan(0);
    add(sectors, "Unknown", -etfWeight);
    add(regions, "Unknown", -etfWeight);
    for (const h of rows.filter((r) => r.linkedType === "etf")) {
      const held = holdingsOf(db(), "etf_holdings", h.holdingSecurityId!);
      expect(held.every((x) => x.linkedType !== "etf" && x.linkedType !== "fund")).toBe(true);
      directExposure(held, (h.weight * scale) / 100, sectors, regions);
    }
    const body = { portfolio_items: [{ symbol: fund.symbol, amount: 1 }] };
    const got = asMap(modelList("portfolio/sector", (await t.post("/v1/portfolio/sector", body)).body));
    const want = asPercent(sectors);
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const k of Object.keys(want)) expect(got[k]).toBeCloseTo(want[k]!, 1);
    const gotRegions = asMap(modelList("portfolio/region", (await t.post("/v1/portfolio/region", body)).body));
    const wantRegions = asPercent(regions);
    for (const k of Object.keys(wantRegions)) expect(gotRegions[k]).toBeCloseTo(wantRegions[k]!, 1);
  });

  it("reads each level of funds in one query per table, however many funds are held", async () => {
    const etfs = db()
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         JOIN quotes q ON q.listing_id = l.id WHERE s.type = 'etf'
           AND EXISTS (SELECT 1 FROM etf_holdings h WHERE h.etf_id = s.id)
           AND NOT EXISTS (SELECT 1 FROM etf_holdings h JOIN securities x ON x.id = h.holding_security_id
             WHERE h.etf_id = s.id AND x.type IN ('etf', 'fund'))
         ORDER BY s.rank, s.id LIMIT 5`,
      )
      .pluck()
      .all() as string[];
    expect(etfs).toHaveLength(5);
    const body = (n: number) => ({ portfolio_items: etfs.slice(0, n).map((symbol) => ({ symbol, amount: 1 })) });
    const one = await t.countQueries(() => t.post("/v1/portfolio/sector", body(1)));
    const five = await t.countQueries(() => t.post("/v1/portfolio/sector", body(5)));
    expect(five.result.status).toBe(200);
    expect(five.queries).toBe(one.queries);
  });

  it("places crypto under Other, and answers 401, 403 and 404 as the other portfolio endpoints", async () => {
    const crypto = withDailyBars(db(), "crypto");
    const only = { portfolio_items: [{ symbol: crypto.symbol, amount: 0.5 }] };
    expect((await t.post("/v1/portfolio/sector", only)).body).toEqual({
      portfolioSectors: [{ sector: "Other", percentage: 100 }],
    });
    expect((await t.post("/v1/portfolio/region", only)).body).toEqual({
      portfolio_regions: [{ region: "Other", percentage: 100 }],
    });
    const etf = directEtf();
    const body = { portfolio_items: [{ symbol: etf.symbol, amount: 1 }] };
    for (const path of Object.keys(MODELS)) {
      expectErrorBody(await t.post(`/v1/${path}`, body, null), 401, "UNAUTHENTICATED");
      const etfOnly = await t.apiKeys.create({ name: `etf-only-${path}`, scopes: ["etf"] });
      expectErrorBody(await t.post(`/v1/${path}`, body, etfOnly.key), 403, "FORBIDDEN");
      const noEtf = await t.apiKeys.create({ name: `portfolio-only-${path}`, scopes: ["portfolio", "stock"] });
      expectErrorBody(await t.post(`/v1/${path}`, body, noEtf.key), 403, "FORBIDDEN");
      expectErrorBody(
        await t.post(`/v1/${path}`, { portfolio_items: [{ symbol: "NO-SUCH-SYMBOL-X", amount: 1 }] }),
        404,
        "NOT_FOUND",
      );
      expectErrorBody(
        await t.post(`/v1/${path}`, { portfolio_items: [{ symbol: etf.symbol }] }),
        404,
        "INVALID_ARGUMENT",
      );
    }
  });

  it("answers on GraphQL what REST answers", async () => {
    const stock = withDailyBars(db(), "stock");
    const etf = directEtf();
    const items = [
      { symbol: stock.symbol, amount: 3, buyDate: unix("2026-02-02") },
      { symbol: etf.symbol, amount: 1 },
    ];
    const res = await gql(
      t,
      `query($items: [PortfolioItemInput!]!) {
        portfolio(items: $items, currency: "USD") {
          allocation { symbol percentage } sectors { sector percentage } regions { region percentage }
        }
      }`,
      { items },
    );
    expect(res.body.errors).toBeUndefined();
    const body = {
      portfolio_items: items.map((i) => ({ symbol: i.symbol, amount: i.amount, buy_date: i.buyDate })),
      currency: "USD",
    };
    const p = res.body.data.portfolio;
    expect(p.allocation).toEqual((await t.post("/v1/portfolio/allocation", body)).body.portfolio_allocations);
    expect(p.sectors).toEqual((await t.post("/v1/portfolio/sector", body)).body.portfolioSectors);
    expect(p.regions).toEqual((await t.post("/v1/portfolio/region", body)).body.portfolio_regions);
  });
});

describe("a fund that holds itself, and an ETF with tables but no holdings", () => {
  let dir: string;
  let t: TestApp;
  let fund: { id: number; symbol: string };
  let etf: { id: number; symbol: string };
  let stock: { id: number; sector: string; country: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mdg-lookthrough-"));
    const copy = join(dir, "store.db");
    const src = new Database(TEST_STORE_PATH, { readonly: true });
    src.exec(`VACUUM INTO '${copy.replace(/'/g, "''")}'`);
    src.close();
    const db = new Database(copy);
    const quoted = (type: string) =>
      db
        .prepare(
          `SELECT s.id, l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
           JOIN quotes q ON q.listing_id = l.id WHERE s.type = ? ORDER BY s.rank, s.id LIMIT 1`,
        )
        .get(type) as { id: number; symbol: string };
    fund = quoted("fund");
    etf = quoted("etf");
    stock = db
      .prepare(
        `SELECT id, sector, country FROM securities WHERE type = 'stock' AND sector IS NOT NULL AND country = 'DE'
         ORDER BY rank, id LIMIT 1`,
      )
      .get() as typeof stock;
    // The fund: 50 % in the ETF, the rest not reported. The ETF: 40 % in the fund (back up the path), 60 % in the
    // stock, with no sector or country of its own on the rows (the stock's are read).
    db.prepare(`DELETE FROM fund_holdings WHERE fund_id = ?`).run(fund.id);
    db.prepare(
      `INSERT INTO fund_holdings (fund_id, position, holding_security_id, symbol, name, isin, asset_class, sector,
       country, weight, market_value) VALUES (?, 1, ?, ?, 'the ETF', NULL, 'Other', NULL, NULL, 50, 1)`,
    ).run(fund.id, etf.id, etf.symbol);
    db.prepare(`DELETE FROM etf_holdings WHERE etf_id = ?`).run(etf.id);
    const insert = db.prepare(
      `INSERT INTO etf_holdings (etf_id, position, holding_security_id, symbol, name, isin, cusip, sector, country,
       shares, weight, market_value) VALUES (?, ?, ?, NULL, 'held', NULL, NULL, NULL, NULL, 1, ?, 1)`,
    );
    insert.run(etf.id, 1, fund.id, 40);
    insert.run(etf.id, 2, stock.id, 60);
    db.close();
    t = await createTestApp({ storePath: copy });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stops at the fund met again on its own path and reports it, with the unreported rest, as Unknown", async () => {
    // The fund: 50 % unreported; 50 % × 40 % back in the fund itself; 50 % × 60 % in the stock.
    const body = { portfolio_items: [{ symbol: fund.symbol, amount: 1 }] };
    expect((await t.post("/v1/portfolio/sector", body)).body).toEqual({
      portfolioSectors: [
        { sector: "Unknown", percentage: 70 },
        { sector: stock.sector, percentage: 30 },
      ],
    });
    expect((await t.post("/v1/portfolio/region", body)).body).toEqual({
      portfolio_regions: [
        { region: "Unknown", percentage: 70 },
        { region: "Europe", percentage: 30 },
      ],
    });
  });

  it("counts a fund without holdings rows by its sector and country tables", async () => {
    const other = t.source.db
      .prepare(
        `SELECT s.id, l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         JOIN quotes q ON q.listing_id = l.id WHERE s.type = 'etf' AND s.id <> ?
           AND EXISTS (SELECT 1 FROM etf_sector_exposure e WHERE e.etf_id = s.id) ORDER BY s.rank, s.id LIMIT 1`,
      )
      .get(etf.id) as { id: number; symbol: string };
    const sectors = t.source.db
      .prepare(`SELECT sector, weight FROM etf_sector_exposure WHERE etf_id = ?`)
      .all(other.id) as { sector: string; weight: number }[];
    // Seen through a read-only handle, the app's store is the copy: drop the holdings there and ask again.
    const db = new Database(join(dir, "store.db"));
    db.prepare(`DELETE FROM etf_holdings WHERE etf_id = ?`).run(other.id);
    db.close();
    const app = await createTestApp({ storePath: join(dir, "store.db") });
    try {
      const res = await app.post("/v1/portfolio/sector", { portfolio_items: [{ symbol: other.symbol, amount: 1 }] });
      expect(res.status).toBe(200);
      const total = sectors.reduce((s, x) => s + x.weight, 0);
      const want = new Map(sectors.map((x) => [x.sector, x.weight / Math.max(100, total)]));
      if (total < 100) want.set("Unknown", (100 - total) / 100);
      const got = asMap(modelList("portfolio/sector", res.body));
      const expected = asPercent(want);
      expect(Object.keys(got).sort()).toEqual(Object.keys(expected).sort());
      for (const k of Object.keys(expected)) expect(got[k]).toBeCloseTo(expected[k]!, 1);
    } finally {
      await app.close();
    }
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers", async () => {
    const stock = withDailyBars(gw.upstream.app.source.db, "stock");
    const etf = withDailyBars(gw.upstream.app.source.db, "etf");
    const body = {
      portfolio_items: [
        { symbol: stock.symbol, amount: 4, buy_date: unix("2026-03-02") },
        { symbol: etf.symbol, amount: 1.5, buy_date: null },
      ],
      currency: "CHF",
    };
    for (const path of Object.keys(MODELS)) {
      const direct = await gw.upstream.app.post(`/v1/${path}`, body);
      expect(direct.status).toBe(200);
      const res = await gw.gateway.post(`/v1/${path}`, body, GATEWAY_KEY);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 200, body: direct.body });
    }
  });
});
