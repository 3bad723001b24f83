import {
  isValidCusip,
  isValidIsin,
  isValidWkn,
  SECURITY_IDENTIFIERS,
} from "../../../src/domain/instrument/instrument.identifiers";
import { isValidCusip as sampleCusipValid } from "../../../src/tools/sample/sample.identifiers";
import { createTestApp, type TestApp } from "../../helpers/app";
import { expectErrorBody } from "../../helpers/expect";
import { gql } from "../../helpers/graphql";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Row {
  symbol: string;
  type: string;
  isin: string;
  cusip: string | null;
}

/** The primary listing of the largest security of `type` whose ISIN starts with `country`, as stored. */
function sample(type: string, country: "US" | "DE"): Row {
  const row = t.source.db
    .prepare(
      `SELECT l.symbol, s.type, s.isin, s.cusip FROM securities s
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE s.type = ? AND substr(s.isin, 1, 2) = ? ORDER BY s.rank, s.id LIMIT 1`,
    )
    .get(type, country) as Row | undefined;
  if (!row) throw new Error(`the test store has no ${type} with a ${country} ISIN`);
  return row;
}

const wknOf = (isin: string) => isin.slice(5, 11);
const cusipOf = (isin: string) => isin.slice(2, 11);

describe("check rules", () => {
  it("CUSIP: nine characters with the double-add-double check digit", () => {
    expect(isValidCusip("037833100")).toBe(true); // Apple
    expect(isValidCusip("38259P508")).toBe(true); // Google (a letter in the issuer)
    expect(isValidCusip("037833101")).toBe(false);
    expect(isValidCusip("03783310")).toBe(false);
    expect(isValidCusip("037833100X")).toBe(false);
    expect(isValidCusip("o37833100")).toBe(false);
  });

  it("WKN: six letters or digits, never I or O", () => {
    expect(isValidWkn("865985")).toBe(true); // Apple
    expect(isValidWkn("A0YEDG")).toBe(true);
    expect(isValidWkn("A0YEDI")).toBe(false);
    expect(isValidWkn("86598O")).toBe(false);
    expect(isValidWkn("86598")).toBe(false);
    expect(isValidWkn("8659851")).toBe(false);
  });

  it("the sample's identifiers pass the service's rules: US ISINs embed the CUSIP, DE ISINs the WKN", () => {
    const rows = t.source.db.prepare(`SELECT isin, cusip, wkn FROM securities WHERE isin IS NOT NULL`).all() as {
      isin: string;
      cusip: string | null;
      wkn: string | null;
    }[];
    const us = rows.filter((r) => r.isin.startsWith("US"));
    const de = rows.filter((r) => r.isin.startsWith("DE"));
    expect(us.length).toBeGreaterThan(10);
    expect(de.length).toBeGreaterThan(10);
    for (const r of us) {
      expect(isValidIsin(r.isin)).toBe(true);
      expect(r.cusip).toBe(cusipOf(r.isin));
      expect(isValidCusip(r.cusip!) && sampleCusipValid(r.cusip!)).toBe(true);
    }
    for (const r of de) {
      expect(r.wkn).toBe(wknOf(r.isin));
      expect(isValidWkn(r.wkn!)).toBe(true);
    }
  });

  it("every security listed in Germany carries a WKN, unique; foreign ones one of the A series; others none", () => {
    const rows = t.source.db
      .prepare(
        `SELECT s.id, s.isin, s.wkn, EXISTS (SELECT 1 FROM listings l WHERE l.security_id = s.id
           AND l.exchange IN ('XFRA', 'XETR')) AS german FROM securities s`,
      )
      .all() as { id: number; isin: string | null; wkn: string | null; german: number }[];
    const german = rows.filter((r) => r.german);
    const foreign = german.filter((r) => !r.isin?.startsWith("DE"));
    expect(foreign.length).toBeGreaterThan(10);
    for (const r of german) expect({ id: r.id, valid: isValidWkn(r.wkn ?? "") }).toEqual({ id: r.id, valid: true });
    for (const r of foreign) expect(r.wkn).toMatch(/^A[0-9A-HJ-NP-Z]{5}$/);
    const wkns = rows.flatMap((r) => (r.wkn ? [r.wkn] : []));
    expect(new Set(wkns).size).toBe(wkns.length);
    expect(rows.filter((r) => !r.german && !r.isin?.startsWith("DE")).every((r) => r.wkn === null)).toBe(true);
  });

  it("a foreign security traded in Frankfurt answers by its WKN as by its symbol", async () => {
    const row = t.source.db
      .prepare(
        `SELECT l.symbol, s.wkn FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         WHERE s.type = 'stock' AND substr(s.isin, 1, 2) = 'US' AND s.wkn IS NOT NULL ORDER BY s.rank, s.id LIMIT 1`,
      )
      .get() as { symbol: string; wkn: string };
    const bySymbol = await t.post("/v1/quote", { symbol: row.symbol });
    const byWkn = await t.post("/v1/quote", { wkn: row.wkn });
    expect(byWkn.status).toBe(200);
    expect(byWkn.body).toEqual(bySymbol.body);
  });
});

describe.each(["v0", "v1"])("/%s: a security named by cusip or wkn", (v) => {
  it("quote: by cusip and by wkn, the same answer as by symbol", async () => {
    for (const [row, body] of [
      [sample("stock", "US"), (r: Row) => ({ cusip: r.cusip })],
      [sample("stock", "DE"), (r: Row) => ({ wkn: wknOf(r.isin) })],
    ] as const) {
      const bySymbol = await t.post(`/${v}/quote`, { symbol: row.symbol });
      const byCode = await t.post(`/${v}/quote`, body(row));
      expect(byCode.status).toBe(200);
      expect(byCode.body).toEqual(bySymbol.body);
    }
  });

  it("codes are case-insensitive and trimmed", async () => {
    const row = sample("stock", "DE");
    const res = await t.post(`/${v}/quote`, { wkn: ` ${wknOf(row.isin).toLowerCase()} ` });
    expect(res.status).toBe(200);
    expect(res.body.symbol).toBe(row.symbol);
  });

  it("ETF, fund, stock and dividend endpoints take them too", async () => {
    const etf = sample("etf", "US");
    const fund = sample("fund", "US");
    const stock = sample("stock", "US");
    // A payer: a security without dividends is another matter (docs/contract.md section 2).
    const payer = t.source.db
      .prepare(
        `SELECT l.symbol, s.cusip FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         WHERE s.type = 'stock' AND s.cusip IS NOT NULL
           AND EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id)
         ORDER BY s.id LIMIT 1`,
      )
      .get() as { symbol: string; cusip: string };
    const calls: [string, Record<string, unknown>, string][] = [
      ["etf/profile", { cusip: etf.cusip }, etf.symbol],
      ["fund/profile", { cusip: fund.cusip }, fund.symbol],
      ["dividends/annual", { cusip: payer.cusip }, payer.symbol],
      ["candle", { cusip: stock.cusip, resolution: "D", from: "2026-11-01" }, stock.symbol],
    ];
    for (const [path, body, symbol] of calls) {
      const res = await t.post(`/${v}/${path}`, body);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.body.symbol).toBe(symbol);
    }
    const cal = await t.post(`/${v}/calendar/dividends`, { cusip: payer.cusip, from: "2000-01-01", to: "2030-12-31" });
    expect(cal.status).toBe(200);
    expect(cal.body.dividends.length).toBeGreaterThan(0);
    expect(new Set(cal.body.dividends.map((d: { symbol: string }) => d.symbol))).toEqual(new Set([payer.symbol]));
  });

  it("lookups by cusip and wkn are kept by the instrument cache like those by symbol", async () => {
    const us = sample("stock", "US");
    const de = sample("stock", "DE");
    for (const body of [{ symbol: us.symbol }, { cusip: us.cusip }, { wkn: wknOf(de.isin) }]) {
      t.instrumentCache.clear();
      // Kept from its second miss on (src/sources/source.cache.ts): the third call reads no instrument.
      const first = await t.countQueries(() => t.post(`/${v}/quote`, body), { keepCache: true });
      await t.post(`/${v}/quote`, body);
      const third = await t.countQueries(() => t.post(`/${v}/quote`, body), { keepCache: true });
      expect({ body, status: third.result.status }).toEqual({ body, status: 200 });
      expect(first.queries).toBeGreaterThan(0);
      expect(third.queries).toBe(0);
    }
  });

  it("a malformed code is 404 INVALID_ARGUMENT naming the field; an unknown valid one 404 NOT_FOUND", async () => {
    const bad = await t.post(`/${v}/quote`, { cusip: "037833101" });
    expectErrorBody(bad, 404, "INVALID_ARGUMENT");
    expect(bad.body.message).toMatch(/^cusip: .*not a valid CUSIP/);
    expect(bad.body.details).toEqual([{ field: "cusip", issue: "malformed" }]);
    const badWkn = await t.post(`/${v}/etf/profile`, { wkn: "ABCDEI" });
    expectErrorBody(badWkn, 404, "INVALID_ARGUMENT");
    expect(badWkn.body.details).toEqual([{ field: "wkn", issue: "malformed" }]);

    const known = new Set(
      (t.source.db.prepare(`SELECT cusip FROM securities WHERE cusip IS NOT NULL`).pluck().all() as string[]).concat(
        t.source.db.prepare(`SELECT wkn FROM securities WHERE wkn IS NOT NULL`).pluck().all() as string[],
      ),
    );
    expect(known.has("037833100")).toBe(false);
    expectErrorBody(await t.post(`/${v}/quote`, { cusip: "037833100" }), 404, "NOT_FOUND");
    expect(known.has("ZZZZZZ")).toBe(false);
    expectErrorBody(await t.post(`/${v}/quote`, { wkn: "ZZZZZZ" }), 404, "NOT_FOUND");
  });

  it("a code of a security of another kind is 404 NOT_FOUND (an ETF's wkn on a fund endpoint)", async () => {
    const stock = sample("stock", "US");
    expectErrorBody(await t.post(`/${v}/etf/profile`, { cusip: stock.cusip }), 404, "NOT_FOUND");
  });

  it("two identifiers at once are malformed: 404 INVALID_ARGUMENT, whatever the pair", async () => {
    const row = sample("stock", "US");
    const ids = { symbol: row.symbol, isin: row.isin, cusip: row.cusip!, wkn: "865985" };
    for (let i = 0; i < SECURITY_IDENTIFIERS.length; i++) {
      for (let j = i + 1; j < SECURITY_IDENTIFIERS.length; j++) {
        const a = SECURITY_IDENTIFIERS[i]!;
        const b = SECURITY_IDENTIFIERS[j]!;
        const res = await t.post(`/${v}/quote`, { [a]: ids[a], [b]: ids[b] });
        expectErrorBody(res, 404, "INVALID_ARGUMENT");
        expect(res.body.message).toContain("exactly one of symbol, isin, cusip or wkn");
      }
    }
    expectErrorBody(
      await t.post(`/${v}/fund/profile`, { isin: row.isin, symbol: row.symbol }),
      404,
      "INVALID_ARGUMENT",
    );
  });

  it("bulk items may name their security by cusip or wkn, echoed in each result; one batched lookup", async () => {
    const us = t.source.db
      .prepare(
        `SELECT l.symbol, s.cusip FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         WHERE s.type = 'stock' AND s.cusip IS NOT NULL ORDER BY s.id LIMIT 5`,
      )
      .all() as { symbol: string; cusip: string }[];
    const de = sample("stock", "DE");
    const items = [...us.map((r) => ({ cusip: r.cusip })), { wkn: wknOf(de.isin) }, { cusip: "037833101" }];
    const { result: res, queries } = await t.countQueries(() =>
      t.post(`/${v}/bulk`, { endpoint: "quote", symbols: items }),
    );
    expect(res.status).toBe(200);
    const results = res.body.results as { symbol: null; cusip?: string; wkn?: string; statusCode: number }[];
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200, 404]);
    expect(results.map((r) => (r as { data?: { symbol: string } }).data?.symbol)).toEqual([
      ...us.map((r) => r.symbol),
      de.symbol,
      undefined,
    ]);
    expect(results[0]).toMatchObject({ symbol: null, cusip: us[0]!.cusip });
    expect(results[5]).toMatchObject({ symbol: null, wkn: wknOf(de.isin) });
    // One query for the CUSIPs and one for the WKN (different loaders), whatever the count (keys: no store query).
    expect(queries).toBeLessThanOrEqual(2);
  });
});

describe("GraphQL", () => {
  it("quote, etf, fund, stock and candle take cusip and wkn arguments", async () => {
    const stock = sample("stock", "US");
    const de = sample("stock", "DE");
    const etf = sample("etf", "US");
    const fund = sample("fund", "US");
    const res = await gql(
      t,
      `query ($c: String, $w: String, $e: String, $f: String) {
        q: quote(cusip: $c) { symbol }
        d: quote(wkn: $w) { symbol }
        etf(cusip: $e) { symbol }
        fund(cusip: $f) { symbol }
        stock(wkn: $w) { symbol }
        candle(cusip: $c, resolution: "W") { symbol }
      }`,
      { c: stock.cusip, w: wknOf(de.isin), e: etf.cusip, f: fund.cusip },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      q: { symbol: stock.symbol },
      d: { symbol: de.symbol },
      etf: { symbol: etf.symbol },
      fund: { symbol: fund.symbol },
      stock: { symbol: de.symbol },
      candle: { symbol: stock.symbol },
    });
  });

  it("two identifiers are BAD_USER_INPUT; an unknown code NOT_FOUND", async () => {
    const stock = sample("stock", "US");
    const two = await gql(t, `query ($s: String, $c: String) { quote(symbol: $s, cusip: $c) { symbol } }`, {
      s: stock.symbol,
      c: stock.cusip,
    });
    expect(two.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    const unknown = await gql(t, `{ quote(wkn: "ZZZZZZ") { symbol } }`);
    expect(unknown.body.errors[0].extensions.code).toBe("NOT_FOUND");
  });
});
