import { createTestApp, type TestApp } from "../../helpers/app";
import { gql } from "../../helpers/graphql";

/**
 * The `id` of entity types (src/domain/instrument/instrument.ids.ts): unique within each type over the whole test
 * store, and made of what names the thing in the data (exchange, symbol, ISIN, date), so a store rebuilt from the
 * same data gives the same ids whatever its row numbers.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

function expectUnique(ids: string[]): void {
  expect(ids.length).toBeGreaterThan(0);
  expect(new Set(ids).size).toBe(ids.length);
}

async function data<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await gql(t, query, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data as T;
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface Holdings {
  id: string;
  atDate: string;
  holdings: { id: string }[];
}

it("gives every ETF, its profile, its holdings and each position an id unique in its type, from its data", async () => {
  const rows = t.source.db
    .prepare(
      `SELECT l.symbol, l.exchange, s.isin FROM listings l JOIN securities s ON s.id = l.security_id
        WHERE s.type = 'etf' AND l.is_primary = 1 ORDER BY l.symbol`,
    )
    .all() as { symbol: string; exchange: string; isin: string | null }[];
  const etfIds: string[] = [];
  const profileIds: string[] = [];
  const holdingsIds: string[] = [];
  const positionIds: string[] = [];
  for (const symbols of chunks(
    rows.map((r) => r.symbol),
    5,
  )) {
    const { etfs } = await data<{
      etfs: {
        id: string;
        symbol: string;
        exchange: string;
        isin: string | null;
        profile: { id: string };
        holdings: Holdings;
      }[];
    }>(
      `query E($s: [String!]!) { etfs(symbols: $s) {
        id symbol exchange isin profile { id } holdings { id atDate holdings { id } } } }`,
      { s: symbols },
    );
    for (const e of etfs) {
      expect(e.id).toBe(`${e.exchange}:${e.symbol}`);
      const security = e.isin ?? e.id;
      expect(e.profile.id).toBe(security);
      expect(e.holdings.id).toBe(`${security}@${e.holdings.atDate}`);
      for (const h of e.holdings.holdings) expect(h.id.startsWith(`${e.holdings.id}/`)).toBe(true);
      etfIds.push(e.id);
      profileIds.push(e.profile.id);
      holdingsIds.push(e.holdings.id);
      positionIds.push(...e.holdings.holdings.map((h) => h.id));
    }
  }
  expect(etfIds).toHaveLength(rows.length);
  for (const ids of [etfIds, profileIds, holdingsIds, positionIds]) expectUnique(ids);
});

it("gives every fund's profile, holdings and positions an id unique in its type", async () => {
  const isins = (
    t.source.db.prepare(`SELECT isin FROM securities WHERE type = 'fund' AND isin IS NOT NULL ORDER BY isin`).all() as {
      isin: string;
    }[]
  ).map((r) => r.isin);
  const profileIds: string[] = [];
  const positionIds: string[] = [];
  const fundIds: string[] = [];
  for (const batch of chunks(isins, 10)) {
    const { funds } = await data<{
      funds: { id: string; isin: string; profile: { id: string }; holdings: Holdings }[];
    }>(
      `query F($i: [String!]!) { funds(isins: $i) { id isin profile { id } holdings { id atDate holdings { id } } } }`,
      { i: batch },
    );
    for (const f of funds) {
      expect(f.profile.id).toBe(f.isin);
      expect(f.holdings.id).toBe(`${f.isin}@${f.holdings.atDate}`);
      fundIds.push(f.id);
      profileIds.push(f.profile.id);
      positionIds.push(...f.holdings.holdings.map((h) => h.id));
    }
  }
  expect(profileIds).toHaveLength(isins.length);
  for (const ids of [fundIds, profileIds, positionIds]) expectUnique(ids);
});

it("gives every security of the lists and every listing an id unique in its type", async () => {
  const securities: string[] = [];
  const listings: string[] = [];
  for (const field of ["listStocks", "listEtfs", "listFunds", "listCrypto"]) {
    let cursor: string | null = null;
    do {
      const page: {
        [k: string]: { results: { id: string; listings: { id: string }[] }[]; nextCursor: string | null };
      } = await data(
        `query L($c: String) { ${field}(limit: 1000, cursor: $c) { results { id listings { id } } nextCursor } }`,
        {
          c: cursor,
        },
      );
      for (const item of page[field]!.results) {
        securities.push(item.id);
        listings.push(...item.listings.map((l) => l.id));
      }
      cursor = page[field]!.nextCursor;
    } while (cursor);
  }
  expectUnique(securities);
  expectUnique(listings);
});
