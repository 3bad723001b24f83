import { createTestApp, type TestApp } from "../../helpers/app";
import { expectErrorBody } from "../../helpers/expect";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Multi {
  id: number;
  name: string;
  isin: string;
  n: number;
}

/** A stock listed on several exchanges, with a name that is not shared by another security. */
function multiListed(): Multi {
  return t.source.db
    .prepare(
      `SELECT s.id, s.name, s.isin, COUNT(*) AS n FROM securities s JOIN listings l ON l.security_id = s.id
       WHERE s.type = 'stock' AND (SELECT COUNT(*) FROM securities o WHERE o.name = s.name) = 1
       GROUP BY s.id HAVING n >= 2 ORDER BY s.rank LIMIT 1`,
    )
    .get() as Multi;
}

function symbolsOf(id: number): string[] {
  return (
    t.source.db.prepare(`SELECT symbol FROM listings WHERE security_id = ? ORDER BY is_primary DESC, id`).all(id) as {
      symbol: string;
    }[]
  ).map((r) => r.symbol);
}

/** Swaps two inner letters of the longest word: a typo a person makes. */
function misspell(name: string): string {
  const words = name.split(" ");
  const i = words.reduce((best, w, j) => (w.length > words[best]!.length ? j : best), 0);
  const w = words[i]!;
  words[i] = w.slice(0, 1) + w[2] + w[1] + w.slice(3);
  return words.join(" ");
}

describe.each(["v0", "v1"])("POST /%s/search", (v) => {
  it("finds a security by ISIN first, with the contract's row shape and statusCode", async () => {
    const m = multiListed();
    const res = await t.post(`/${v}/search`, { query: m.isin });
    expect(res.status).toBe(200);
    expect(res.body.statusCode).toBe(200);
    expect(res.body.results[0].isin).toBe(m.isin);
    expect(Object.keys(res.body.results[0]).sort()).toEqual(
      [
        "symbol",
        "companyName",
        "isin",
        "type",
        "isEtf",
        "isFund",
        "isAdr",
        "isActivelyTrading",
        "currency",
        "exchange",
        "marketCapitalization",
      ].sort(),
    );
  });

  it("finds a security by an exact symbol first, then symbols with that prefix", async () => {
    const m = multiListed();
    const [primary] = symbolsOf(m.id);
    const res = await t.post(`/${v}/search`, { query: primary!.toLowerCase() });
    expect(res.body.results[0].symbol).toBe(primary);
  });

  it("finds a security by a misspelt name", async () => {
    const m = multiListed();
    const typo = misspell(m.name);
    expect(typo).not.toBe(m.name);
    const res = await t.post(`/${v}/search`, { query: typo });
    expect(res.status).toBe(200);
    expect(res.body.results.slice(0, 10).map((r: { isin: string }) => r.isin)).toContain(m.isin);
  });

  it("filters by type and honours limit", async () => {
    const res = await t.post(`/${v}/search`, { query: "a", types: ["etf"], limit: 5 });
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeLessThanOrEqual(5);
    for (const r of res.body.results) expect(r.isEtf).toBe(true);
  });

  it.each([
    { query: "" },
    { query: "   " },
    {},
    { query: 1 },
    { query: "x", limit: 0 },
    { query: "x", limit: 1000 },
    { query: "x".repeat(201) },
  ])("answers 404 INVALID_ARGUMENT for %j", async (body) => {
    expectErrorBody(await t.post(`/${v}/search`, body), 404, "INVALID_ARGUMENT");
  });
});

describe.each(["v0", "v1"])("POST /%s/search/aggregated", (v) => {
  it("returns one group per security with all of its listings", async () => {
    const m = multiListed();
    const res = await t.post(`/${v}/search/aggregated`, { query: m.name });
    expect(res.status).toBe(200);
    const groups = res.body.results.filter((g: { isin: string }) => g.isin === m.isin);
    expect(groups).toHaveLength(1);
    expect(groups[0].name).toBe(m.name);
    expect(groups[0].listings.map((l: { symbol: string }) => l.symbol)).toEqual(symbolsOf(m.id));
    expect(groups[0].listings.length).toBe(m.n);
    // Listings carry their own currency: a multi-listed stock trades in more than one here.
    expect(res.body.results[0].isin).toBe(m.isin);
  });

  it("never repeats a security", async () => {
    const res = await t.post(`/${v}/search/aggregated`, { query: "a", limit: 50 });
    const isins = res.body.results.map((g: { isin: string; symbol: string }) => g.isin ?? g.symbol);
    expect(new Set(isins).size).toBe(isins.length);
  });
});
