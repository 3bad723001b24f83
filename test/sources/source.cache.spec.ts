import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Database as Db } from "better-sqlite3";
import { createTestApp, type TestApp } from "../helpers/app";
import { BOOTSTRAP_KEY, TEST_STORE_PATH } from "../helpers/constants";
import type { InstrumentRow } from "../../src/domain/ports/source.types";
import { cacheInstruments, entryBytes } from "../../src/sources/source.cache";
import type { CapabilityName, MarketDataSource } from "../../src/domain/ports/source.capabilities";
import { createLoaders, symbolCandidates } from "../../src/domain/ports/source.loaders";
import { loadConfig, ConfigError } from "../../src/platform/config";
import { SqliteSource } from "../../src/sources/sqlite/sqlite.source";

// These tests change the store, so they run on a copy of it, changed through a second connection as a loader
// process would: the cache must notice commits it did not make.
let dir: string;
let copy: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mdg-cache-"));
  copy = join(dir, "store.db");
  const src = new Database(TEST_STORE_PATH, { readonly: true });
  src.exec(`VACUUM INTO '${copy.replace(/'/g, "''")}'`);
  src.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Stock {
  listingId: number;
  symbol: string;
  isin: string;
  c: number;
}

/** The n largest stocks whose symbols are plain letters and digits (so each is looked up under two keys). */
function stocks(t: TestApp, n: number): Stock[] {
  return t.source.db
    .prepare(
      `SELECT l.id AS listingId, l.symbol, s.isin, q.c FROM securities s
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 JOIN quotes q ON q.listing_id = l.id
       WHERE s.type = 'stock' AND s.isin IS NOT NULL AND l.symbol NOT GLOB '*[^A-Z0-9]*' ORDER BY s.rank LIMIT ?`,
    )
    .all(n) as Stock[];
}

/**
 * MDG_INSTRUMENT_CACHE_MB holding the lookups of exactly these stocks (the symbol and its crypto-pair
 * spelling, as `entryBytes` counts them) and 100 bytes more: less than any other stock's lookups.
 */
/** Store queries counted with the cache as each test left it. */
const KEEP = { keepCache: true };

async function budgetFor(t: TestApp, list: readonly Stock[]): Promise<string> {
  let bytes = 100;
  for (const s of list) {
    const keys = symbolCandidates(s.symbol);
    const rows = await t.source.getInstrumentsBySymbols(keys);
    keys.forEach((k, i) => (bytes += entryBytes(`s:${k}`, rows[i] ?? null)));
  }
  return String(bytes / 2 ** 20);
}

async function metric(t: TestApp, name: string): Promise<number> {
  const text = (await t.http.get("/metrics")).text;
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  if (!m) throw new Error(`${name} not in /metrics`);
  return Number(m[1]);
}

describe("instrument lookups cached across requests", () => {
  let t: TestApp;
  let writer: Db;
  beforeAll(async () => {
    t = await createTestApp({ storePath: copy });
    writer = new Database(copy);
    writer.pragma("busy_timeout = 5000");
  });
  afterAll(async () => {
    writer.close();
    await t.close();
  });

  it.each(["symbol", "isin"] as const)(
    "answers a stock by %s from memory from its third request on, with the same body",
    async (by) => {
      const [s] = stocks(t, 1);
      t.instrumentCache.clear();
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await t.countQueries(() => t.post("/v1/quote", { [by]: s![by] }), KEEP));
      // Kept from its second miss on (source.cache.ts says why).
      expect(answers.map((a) => a.queries)).toEqual([1, 1, 0]);
      expect(answers[0]!.result.body.symbol).toBe(s!.symbol);
      for (const a of answers) {
        expect(a.result.status).toBe(200);
        expect(a.result.body).toEqual(answers[0]!.result.body);
      }
    },
  );

  it("answers GraphQL from the cache REST filled", async () => {
    const [s] = stocks(t, 1);
    t.instrumentCache.clear();
    await t.post("/v1/quote", { symbol: s!.symbol });
    await t.post("/v1/quote", { symbol: s!.symbol });
    const gql = await t.countQueries(
      () =>
        t.http
          .post("/graphql")
          .set("x-api-key", BOOTSTRAP_KEY)
          .send({ query: "query ($s: String!) { quote(symbol: $s) { symbol c } }", variables: { s: s!.symbol } }),
      KEEP,
    );
    expect(gql.result.status).toBe(200);
    expect(gql.result.body).toEqual({ data: { quote: { symbol: s!.symbol, c: s!.c } } });
    expect(gql.queries).toBe(0);
  });

  it("keeps the symbols asked again while a client sweeps others once", async () => {
    const [hot, ...others] = stocks(t, 12);
    const small = await createTestApp({
      storePath: copy,
      env: { MDG_INSTRUMENT_CACHE_MB: await budgetFor(t, [hot!]) },
    });
    try {
      await small.post("/v1/quote", { symbol: hot!.symbol });
      await small.post("/v1/quote", { symbol: hot!.symbol });
      // Eleven symbols asked once each: 22 keys missed, with room for 2.
      for (const o of others)
        expect((await small.countQueries(() => small.post("/v1/quote", { symbol: o.symbol }), KEEP)).queries).toBe(1);
      expect((await small.countQueries(() => small.post("/v1/quote", { symbol: hot!.symbol }), KEEP)).queries).toBe(0);
    } finally {
      await small.close();
    }
  });

  it("answers a price committed by another connection on the next request", async () => {
    const [s] = stocks(t, 1);
    await t.post("/v1/quote", { symbol: s!.symbol });
    const before = await t.countQueries(() => t.post("/v1/quote", { symbol: s!.symbol }), KEEP);
    expect(before.result.body.c).toBe(s!.c);
    expect((await t.countQueries(() => t.post("/v1/quote", { symbol: s!.symbol }), KEEP)).queries).toBe(0);
    const invalidations = await metric(t, "mdg_instrument_cache_invalidations_total");

    writer.prepare(`UPDATE quotes SET c = ? WHERE listing_id = ?`).run(s!.c + 1.25, s!.listingId);
    const after = await t.countQueries(() => t.post("/v1/quote", { symbol: s!.symbol }), KEEP);
    expect(after.result.status).toBe(200);
    expect(after.result.body.c).toBe(s!.c + 1.25);
    expect(after.queries).toBe(1);
    expect(await metric(t, "mdg_instrument_cache_invalidations_total")).toBe(invalidations + 1);
    // A symbol the cache held is kept again on its first miss after the change.
    const again = await t.countQueries(() => t.post("/v1/quote", { symbol: s!.symbol }), KEEP);
    expect(again.result.body.c).toBe(s!.c + 1.25);
    expect(again.queries).toBe(0);

    writer.prepare(`UPDATE quotes SET c = ? WHERE listing_id = ?`).run(s!.c, s!.listingId);
    expect((await t.post("/v1/quote", { symbol: s!.symbol })).body.c).toBe(s!.c);
  });

  it("reads the data version once per turn of the event loop, and sees a commit on the next turn", async () => {
    // Spied before the app wraps the source (the metrics wrapper takes the method as it finds it).
    const readings = jest.spyOn(SqliteSource.prototype, "dataVersion");
    const own = await createTestApp({ storePath: copy });
    const [s] = stocks(own, 1);
    try {
      const cached = own.instrumentCache.source;
      const lookup = async () => (await cached.getInstrumentsBySymbols!([s!.symbol]))[0]!.quote!.c;
      for (let i = 0; i < 2; i++) await lookup();
      await new Promise((r) => setImmediate(r));
      const before = readings.mock.calls.length;
      // Ten requests answered in one turn share one reading.
      expect(await Promise.all(Array.from({ length: 10 }, lookup))).toEqual(Array(10).fill(s!.c));
      expect(readings.mock.calls.length - before).toBe(1);

      writer.prepare(`UPDATE quotes SET c = ? WHERE listing_id = ?`).run(s!.c + 2.5, s!.listingId);
      await new Promise((r) => setImmediate(r));
      expect(await lookup()).toBe(s!.c + 2.5);
      expect(readings.mock.calls.length - before).toBe(2);
    } finally {
      readings.mockRestore();
      writer.prepare(`UPDATE quotes SET c = ? WHERE listing_id = ?`).run(s!.c, s!.listingId);
      await own.close();
    }
  });

  it("remembers an unknown symbol until the store changes, then finds it", async () => {
    const [, s] = stocks(t, 2);
    const renamed = "CACHE.NEW";
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(await t.countQueries(() => t.post("/v1/quote", { symbol: renamed }), KEEP));
    expect(answers.map((a) => [a.result.status, a.queries])).toEqual([
      [404, 1],
      [404, 1],
      [404, 0],
    ]);
    expect(answers[2]!.result.body.error).toEqual(answers[0]!.result.body.error);

    writer.prepare(`UPDATE listings SET symbol = ? WHERE id = ?`).run(renamed, s!.listingId);
    try {
      const found = await t.post("/v1/quote", { symbol: renamed });
      expect(found.status).toBe(200);
      expect(found.body.symbol).toBe(renamed);
      expect((await t.post("/v1/quote", { symbol: s!.symbol })).status).toBe(404);
    } finally {
      writer.prepare(`UPDATE listings SET symbol = ? WHERE id = ?`).run(s!.symbol, s!.listingId);
    }
    expect((await t.post("/v1/quote", { symbol: s!.symbol })).status).toBe(200);
    expect((await t.post("/v1/quote", { symbol: renamed })).status).toBe(404);
  });

  it("counts hits and misses on /metrics", async () => {
    const [a, b] = stocks(t, 2);
    t.instrumentCache.clear();
    const hits = await metric(t, "mdg_instrument_cache_hits_total");
    const misses = await metric(t, "mdg_instrument_cache_misses_total");
    for (const x of [a, a, a, b]) await t.post("/v1/quote", { symbol: x!.symbol });
    // A stock symbol is looked up under its spellings (AAPL, and AAPL-USD for a crypto pair), each a key.
    const keys = (x: Stock) => symbolCandidates(x.symbol).length;
    expect(await metric(t, "mdg_instrument_cache_hits_total")).toBe(hits + keys(a!));
    expect(await metric(t, "mdg_instrument_cache_misses_total")).toBe(misses + 2 * keys(a!) + keys(b!));
    // b was asked once: not kept yet.
    expect(await metric(t, "mdg_instrument_cache_entries")).toBe(keys(a!));
    expect(await metric(t, "mdg_instrument_cache_bytes")).toBe(t.instrumentCache.stats.bytes);
    expect(t.instrumentCache.stats.bytes).toBeGreaterThan(0);
  });
});

describe("MDG_INSTRUMENT_CACHE_MB", () => {
  it("keeps lookups up to that much heap, least recently used dropped first", async () => {
    const probe = await createTestApp({ storePath: copy });
    const [a, b, c] = stocks(probe, 3);
    for (const x of [a, b, c]) expect(symbolCandidates(x!.symbol)).toHaveLength(2);
    // Room for two symbols' lookups (each is two keys: the symbol and its spelling as a crypto pair), not three.
    const budget = await budgetFor(probe, [a!, b!]);
    await probe.close();
    const t = await createTestApp({ storePath: copy, env: { MDG_INSTRUMENT_CACHE_MB: budget } });
    try {
      const cost = async (symbol: string) =>
        (await t.countQueries(() => t.post("/v1/quote", { symbol }), KEEP)).queries;
      const costs = async (...symbols: string[]) => {
        const out = [];
        for (const symbol of symbols) out.push(await cost(symbol));
        return out;
      };
      expect(await costs(a!.symbol, a!.symbol, b!.symbol, b!.symbol, a!.symbol)).toEqual([1, 1, 1, 1, 0]);
      expect(t.instrumentCache.stats.size).toBe(4);
      // c, kept on its second request, pushes out b, the least recently used; a stays.
      expect(await costs(c!.symbol, c!.symbol, c!.symbol)).toEqual([1, 1, 0]);
      expect(t.instrumentCache.stats.size).toBe(4);
      expect(await costs(a!.symbol, b!.symbol)).toEqual([0, 1]);
    } finally {
      await t.close();
    }
  });

  it("0 turns the cache off: every request reads the store", async () => {
    const t = await createTestApp({ storePath: copy, env: { MDG_INSTRUMENT_CACHE_MB: "0" } });
    try {
      const [a] = stocks(t, 1);
      for (let i = 0; i < 3; i++)
        expect((await t.countQueries(() => t.post("/v1/quote", { symbol: a!.symbol }), KEEP)).queries).toBe(1);
      expect(t.instrumentCache.stats.size).toBe(0);
    } finally {
      await t.close();
    }
  });

  it("takes fractions of a MiB", () => {
    expect(loadConfig({ MDG_INSTRUMENT_CACHE_MB: "0.5" }).instrumentCacheBytes).toBe(524_288);
    expect(loadConfig({}).instrumentCacheBytes).toBe(8 * 2 ** 20);
  });

  it.each(["-1", "lots", "1025", "1e9"])("refuses %s at start", (value) => {
    expect(() => loadConfig({ MDG_INSTRUMENT_CACHE_MB: value })).toThrow(ConfigError);
    expect(() => loadConfig({ MDG_INSTRUMENT_CACHE_MB: value })).toThrow(/MDG_INSTRUMENT_CACHE_MB/);
  });
});

/** A source of made-up instruments whose calls a test sees, holds and fails (`cacheInstruments` needs no more). */
function fakeSource() {
  const calls: string[][] = [];
  const held: (() => void)[] = [];
  const fake = {
    kind: "sqlite" as const,
    stats: { queries: 0 },
    capabilities: new Set<CapabilityName>(["instruments"]),
    version: 1,
    hold: false,
    /** Keys whose call rejects as a whole, and keys answered by an Error of their own. */
    failing: new Set<string>(),
    erring: new Set<string>(),
    dataVersion: () => fake.version,
    async getInstrumentsBySymbols(keys: readonly string[]): Promise<(InstrumentRow | null)[]> {
      calls.push([...keys]);
      const at = fake.version;
      if (fake.hold) await new Promise<void>((r) => held.push(r));
      if (keys.some((k) => fake.failing.has(k))) throw new Error(`statement failed on ${keys.join(",")}`);
      return keys.map((k) => {
        if (fake.erring.has(k)) return new Error(`no reading ${k}`) as unknown as InstrumentRow;
        if (k.startsWith("NONE")) return null;
        return { listing: { symbol: k, at }, security: { name: `${k} Corp` } } as unknown as InstrumentRow;
      });
    },
    getInstrumentsByIsins: async (keys: readonly string[]) => keys.map(() => null),
    getInstrumentsByCusips: async (keys: readonly string[]) => keys.map(() => null),
    getInstrumentsByWkns: async (keys: readonly string[]) => keys.map(() => null),
    ping: async () => undefined,
    close: async () => undefined,
  };
  const release = () => held.splice(0).forEach((r) => r());
  return { fake, calls, release, cached: cacheInstruments(fake as unknown as MarketDataSource, 2 ** 20) };
}

const symbolOf = (row: InstrumentRow | null | undefined) => row?.listing.symbol;
const nextTurn = () => new Promise((r) => setImmediate(r));

describe("misses of concurrent requests", () => {
  it("go to the store as one statement per turn of the event loop, with the answers each would have read", async () => {
    const t = await createTestApp({ storePath: copy });
    try {
      const list = stocks(t, 30);
      const symbols = [...list.map((s) => s.symbol), "NOPE.NOPE"];
      const alone = [];
      for (const symbol of symbols) alone.push((await t.source.getInstrumentsBySymbols(symbolCandidates(symbol)))[0]);
      t.instrumentCache.clear();
      // Thirty-one requests, each with its own loaders, as thirty-one HTTP requests answered in one turn.
      const { result, queries } = await t.countQueries(() =>
        Promise.all(symbols.map((s) => createLoaders(t.instrumentCache.source).instrumentBySymbol.load(s))),
      );
      expect(queries).toBe(1);
      expect(result).toEqual(alone);
      expect(result.map(symbolOf)).toEqual([...list.map((s) => s.symbol), undefined]);
    } finally {
      await t.close();
    }
  });

  it("share one read of a key they both miss, and keep it from that second miss on", async () => {
    const { calls, cached } = fakeSource();
    const lookup = () => cached.source.getInstrumentsBySymbols!(["AAA", "NONE1"]);
    const [a, b] = await Promise.all([lookup(), lookup()]);
    expect(calls).toEqual([["AAA", "NONE1"]]);
    expect(a.map(symbolOf)).toEqual(["AAA", undefined]);
    expect(b).toEqual(a);
    // Two requests missed each key: kept, as when each read it alone.
    expect(cached.stats.size).toBe(2);
    expect(await lookup()).toEqual(a);
    expect(calls).toHaveLength(1);
  });

  it("join a read already under way for the same data version, and not one of an older version", async () => {
    const { fake, calls, release, cached } = fakeSource();
    const lookup = (k: string) => cached.source.getInstrumentsBySymbols!([k]);
    fake.hold = true;
    const first = lookup("AAA");
    await nextTurn();
    expect(calls).toEqual([["AAA"]]);
    const joined = lookup("AAA");
    await nextTurn();
    expect(calls).toHaveLength(1);

    // A commit: a request that arrives now must not get the row read before it.
    fake.version = 2;
    await nextTurn();
    const after = lookup("AAA");
    await nextTurn();
    expect(calls).toEqual([["AAA"], ["AAA"]]);
    release();
    const rows = await Promise.all([first, joined, after]);
    expect(rows.map((r) => (r[0]!.listing as unknown as { at: number }).at)).toEqual([1, 1, 2]);
  });

  it("answer a key's error to that key's requests alone, and never cache it", async () => {
    const { fake, calls, cached } = fakeSource();
    fake.erring.add("BAD");
    const lookup = (keys: string[]) => cached.source.getInstrumentsBySymbols!(keys);
    const [bad, good] = await Promise.all([lookup(["BAD", "AAA"]), lookup(["BBB"])]);
    expect(calls).toHaveLength(1);
    expect(bad[0]).toBeInstanceOf(Error);
    expect(symbolOf(bad[1])).toBe("AAA");
    expect(symbolOf(good[0])).toBe("BBB");
    for (let i = 0; i < 2; i++) expect((await lookup(["BAD"]))[0]).toBeInstanceOf(Error);
    expect(calls).toHaveLength(3);
    // Through a request's loader: the load of that symbol rejects; the other symbols of the batch answer.
    const loaders = createLoaders(cached.source);
    const loads = await Promise.allSettled([
      loaders.instrumentBySymbol.load("BAD"),
      loaders.instrumentBySymbol.load("CCC"),
    ]);
    expect(loads[0]).toMatchObject({ status: "rejected", reason: { message: "no reading BAD" } });
    expect(loads[1]).toMatchObject({ status: "fulfilled", value: { listing: { symbol: "CCC" } } });
  });

  it("fail only the requests whose own read fails when the shared statement fails", async () => {
    const { fake, calls, cached } = fakeSource();
    fake.failing.add("FAIL");
    const lookup = (keys: string[]) => cached.source.getInstrumentsBySymbols!(keys);
    const [failed, fine] = await Promise.allSettled([lookup(["FAIL"]), lookup(["AAA", "BBB"])]);
    // The shared statement, then each request's keys alone.
    expect(calls).toEqual([["FAIL", "AAA", "BBB"], ["FAIL"], ["AAA", "BBB"]]);
    expect(failed).toMatchObject({ status: "rejected", reason: { message: "statement failed on FAIL" } });
    expect(fine.status === "fulfilled" && fine.value.map(symbolOf)).toEqual(["AAA", "BBB"]);
    // Alone, a failed read is the request's failure as it was.
    await expect(lookup(["FAIL", "CCC"])).rejects.toThrow("statement failed on FAIL,CCC");
    expect(calls).toHaveLength(4);
  });

  it("split a turn's misses at the source's batch size", async () => {
    const { fake, calls, cached } = fakeSource();
    Object.assign(fake, { maxBatchSize: 2 });
    const keys = ["A1", "A2", "A3", "A4", "A5"];
    const rows = await Promise.all(keys.map((k) => cached.source.getInstrumentsBySymbols!([k])));
    expect(calls).toEqual([["A1", "A2"], ["A3", "A4"], ["A5"]]);
    expect(rows.map((r) => symbolOf(r[0]))).toEqual(keys);
  });
});
