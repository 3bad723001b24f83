import { fixedClock } from "../../../src/platform/clock";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import { storedBars, unix, withDailyBars } from "../../helpers/stock-samples";

/** Apps whose clock stands at `iso`; closed after the file. */
const apps: TestApp[] = [];
async function appAt(iso?: string): Promise<TestApp> {
  const app = await createTestApp(iso ? { clock: fixedClock(iso) } : {});
  apps.push(app);
  return app;
}
afterAll(() => Promise.all(apps.map((a) => a.close())));

function indexSymbol(t: TestApp): { symbol: string; count: number } {
  const row = t.source.db
    .prepare(
      `SELECT index_symbol AS symbol, count(*) AS count FROM index_constituents GROUP BY index_symbol
        ORDER BY count DESC, index_symbol LIMIT 1`,
    )
    .get() as { symbol: string; count: number } | undefined;
  if (!row) throw new Error("the test store has no index constituents");
  return row;
}

describe("removed endpoints, today (the test anchor)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await appAt();
  });

  it("answers 404 ENDPOINT_REMOVED for /v0/stock/candle with the date and the replacement", async () => {
    const res = await t.post("/v0/stock/candle", {
      symbol: withDailyBars(t.source.db, "stock").symbol,
      resolution: "D",
    });
    expectErrorBody(res, 404, "ENDPOINT_REMOVED");
    expect(res.body).toMatchObject({ removedOn: "2024-12-31", replacement: "/v1/candle" });
    expect(res.body.message).toContain("2024-12-31");
  });

  it("answers 404 ENDPOINT_REMOVED for /v1/stock/candle", async () => {
    const res = await t.post("/v1/stock/candle", { symbol: withDailyBars(t.source.db, "stock").symbol });
    expectErrorBody(res, 404, "ENDPOINT_REMOVED");
    expect(res.body.replacement).toBe("/v1/candle");
  });

  it.each(["v0", "v1"])("answers 404 ENDPOINT_REMOVED for /%s/index/constituents", async (v) => {
    const res = await t.post(`/${v}/index/constituents`, { symbol: indexSymbol(t).symbol });
    expectErrorBody(res, 404, "ENDPOINT_REMOVED");
    expect(res.body).toMatchObject({ removedOn: "2024-05-01", replacement: null });
  });

  it("checks the key before answering that an endpoint is removed", async () => {
    expectErrorBody(await t.post("/v0/stock/candle", {}, null), 401, "UNAUTHENTICATED");
  });

  it("serves the replacement /v1/candle", async () => {
    const res = await t.post("/v1/candle", { symbol: withDailyBars(t.source.db, "stock").symbol });
    expect(res.status).toBe(200);
    expect(res.body.s).toBe("ok");
  });
});

describe("/v0/stock/candle around 2024-12-31", () => {
  it("serves stock candles on the removal day itself, like /v1/candle does", async () => {
    const t = await appAt("2024-12-31T23:59:00Z");
    const s = withDailyBars(t.source.db, "stock");
    const body = { symbol: s.symbol, from: unix("2024-11-01"), to: unix("2024-12-20"), resolution: "D" };
    const res = await t.post("/v0/stock/candle", body);
    expect(res.status).toBe(200);
    expect(res.headers["deprecation"]).toBe("@1735689599");
    const stored = storedBars(t.source.db, "daily_bars", s.listingId, body.from, body.to + 86_399);
    expect(res.body.t).toEqual(stored.map((b) => b.t));
    expect(res.body.c).toEqual(stored.map((b) => b.c));
    expect(res.body).toEqual((await t.post("/v1/candle", body)).body);
  });

  it("answers only stocks: an ETF is NOT_FOUND there", async () => {
    const t = await appAt("2024-06-01T12:00:00Z");
    const res = await t.post("/v0/stock/candle", {
      symbol: withDailyBars(t.source.db, "etf").symbol,
      from: "2024-05-01",
      to: "2024-05-31",
    });
    expectErrorBody(res, 404, "NOT_FOUND");
  });

  it("is removed from 2025-01-01 00:00 UTC", async () => {
    const t = await appAt("2025-01-01T00:00:00Z");
    const res = await t.post("/v0/stock/candle", { symbol: withDailyBars(t.source.db, "stock").symbol });
    expectErrorBody(res, 404, "ENDPOINT_REMOVED");
  });

  it("is never on /v1, even before the date", async () => {
    const t = await appAt("2024-06-01T12:00:00Z");
    expectErrorBody(
      await t.post("/v1/stock/candle", { symbol: withDailyBars(t.source.db, "stock").symbol }),
      404,
      "ENDPOINT_REMOVED",
    );
  });
});

describe("/v0/index/constituents around 2024-05-01", () => {
  it("serves the members by weight before and on the removal day", async () => {
    for (const iso of ["2024-04-30T12:00:00Z", "2024-05-01T23:59:59Z"]) {
      const t = await appAt(iso);
      const idx = indexSymbol(t);
      const res = await t.post("/v0/index/constituents", { symbol: idx.symbol.toLowerCase() });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(["constituents", "name", "symbol"]);
      expect(res.body.symbol).toBe(idx.symbol);
      expect(res.body.constituents).toHaveLength(idx.count);
      const stored = t.source.db
        .prepare(
          `SELECT l.symbol, c.weight FROM index_constituents c JOIN listings l ON l.security_id = c.security_id
            AND l.is_primary = 1
           WHERE c.index_symbol = ? ORDER BY c.weight DESC`,
        )
        .all(idx.symbol) as { symbol: string; weight: number }[];
      expect(
        res.body.constituents.map((c: { symbol: string; weight: number }) => ({ symbol: c.symbol, weight: c.weight })),
      ).toEqual(stored);
      for (const c of res.body.constituents)
        expect(Object.keys(c).sort()).toEqual(["isin", "name", "symbol", "weight"]);
    }
  });

  it("answers 404 NOT_FOUND for an unknown index before the date", async () => {
    const t = await appAt("2024-04-30T12:00:00Z");
    expectErrorBody(await t.post("/v0/index/constituents", { symbol: "NOPE-INDEX" }), 404, "NOT_FOUND");
  });

  it("is removed from 2024-05-02 00:00 UTC", async () => {
    const t = await appAt("2024-05-02T00:00:00Z");
    const res = await t.post("/v0/index/constituents", { symbol: indexSymbol(t).symbol }, BOOTSTRAP_KEY);
    expectErrorBody(res, 404, "ENDPOINT_REMOVED");
  });
});
