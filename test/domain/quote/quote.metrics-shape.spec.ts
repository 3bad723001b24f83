import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_STORE_PATH } from "../../helpers/constants";
import { gql } from "../../helpers/graphql";

/**
 * docs/contract.md section 4: when `metrics` is an object, marketCapitalization, avgVolume, eps and sharesOutstanding
 * are numbers and `pe/ratio` is a number or absent; nothing inside is ever null. Client models (the Bavest SDK's
 * `Metrics`) refuse anything else. Checked over a sample of every type on both versions and in GraphQL, and on a
 * copy of the store where one stock is made loss-making (no P/E) and another loses its EPS (metrics null).
 */

let dir: string;
let t: TestApp;
let lossMaking: string;
let withoutEps: string;

const REQUIRED = ["marketCapitalization", "avgVolume", "eps", "sharesOutstanding"];
const TYPES = ["stock", "etf", "fund", "crypto", "forex"];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-metrics-"));
  const copy = join(dir, "store.db");
  const src = new Database(TEST_STORE_PATH, { readonly: true });
  src.exec(`VACUUM INTO '${copy.replace(/'/g, "''")}'`);
  src.close();
  const db = new Database(copy);
  const [a, b] = db
    .prepare(
      `SELECT s.id, l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE s.type = 'stock' AND s.net_income_ttm > 0 AND s.eps_ttm > 0 ORDER BY s.rank LIMIT 2`,
    )
    .all() as { id: number; symbol: string }[];
  db.prepare(`UPDATE securities SET net_income_ttm = -1e6, eps_ttm = -0.5 WHERE id = ?`).run(a!.id);
  db.prepare(`UPDATE securities SET eps_ttm = NULL, net_income_ttm = NULL WHERE id = ?`).run(b!.id);
  db.close();
  lossMaking = a!.symbol;
  withoutEps = b!.symbol;
  t = await createTestApp({ storePath: copy });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every path inside `value` whose value is null. */
function nullsIn(value: unknown, path = "metrics"): string[] {
  if (value === null) return [path];
  if (typeof value !== "object") return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => nullsIn(v, `${path}.${k}`));
}

/** A spread sample of a type's primary listings with a quote: every k-th by rank, and those with stored EPS. */
function sample(type: string): string[] {
  const spread = (
    t.source.db
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         JOIN quotes q ON q.listing_id = l.id WHERE s.type = ? ORDER BY s.rank, s.id`,
      )
      .all(type) as { symbol: string }[]
  ).filter((_, i, all) => i % Math.max(1, Math.floor(all.length / 12)) === 0);
  const reporting = t.source.db
    .prepare(
      `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       JOIN quotes q ON q.listing_id = l.id WHERE s.type = ? AND s.eps_ttm IS NOT NULL ORDER BY s.rank LIMIT 12`,
    )
    .all(type) as { symbol: string }[];
  return [...new Set([...spread, ...reporting].map((r) => r.symbol))];
}

function expectShape(symbol: string, type: string, metrics: unknown) {
  expect({ symbol, nulls: nullsIn(metrics).filter((p) => p !== "metrics") }).toEqual({ symbol, nulls: [] });
  if (metrics === null) return;
  // Only stocks have EPS: every other type answers metrics null.
  expect({ symbol, type }).toEqual({ symbol, type: "stock" });
  const m = metrics as Record<string, unknown>;
  for (const k of REQUIRED) expect({ symbol, k, type: typeof m[k] }).toEqual({ symbol, k, type: "number" });
  const extra = Object.keys(m).filter((k) => !REQUIRED.includes(k));
  expect(extra.filter((k) => k !== "pe/ratio")).toEqual([]);
  if ("pe/ratio" in m) expect(typeof m["pe/ratio"]).toBe("number");
}

describe.each(["v0", "v1"])("quote metrics on /%s", (v) => {
  it.each(TYPES)("every sampled %s has the contract's metrics shape", async (type) => {
    const symbols = sample(type);
    expect(symbols.length).toBeGreaterThanOrEqual(5);
    let objects = 0;
    for (const symbol of symbols) {
      const res = await t.post(`/${v}/quote`, { symbol });
      expect({ symbol, status: res.status }).toEqual({ symbol, status: 200 });
      expect("metrics" in res.body).toBe(true);
      expectShape(symbol, type, res.body.metrics);
      if (res.body.metrics !== null) objects++;
    }
    // Stocks with stored trailing figures answer an object; the other types never do.
    if (type === "stock") expect(objects).toBeGreaterThan(5);
    else expect(objects).toBe(0);
  });

  it("leaves pe/ratio out for a loss-making stock, keeping the required numbers", async () => {
    const res = await t.post(`/${v}/quote`, { symbol: lossMaking });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.metrics).sort()).toEqual([...REQUIRED].sort());
    expect(res.body.metrics.eps).toBe(-0.5);
  });

  it("answers metrics null for a stock whose EPS is unknown", async () => {
    const res = await t.post(`/${v}/quote`, { symbol: withoutEps });
    expect(res.status).toBe(200);
    expect(res.body.metrics).toBeNull();
  });
});

describe("quote metrics in GraphQL", () => {
  it("are null or carry the four required numbers; peRatio null only where REST leaves it out", async () => {
    const symbols = [...TYPES.flatMap((type) => sample(type).slice(0, 4)), lossMaking, withoutEps];
    const res = await gql(
      t,
      `query ($s: [String!]!) { quotes(symbols: $s) { symbol type
        metrics { marketCapitalization avgVolume eps peRatio sharesOutstanding } } }`,
      { s: symbols },
    );
    expect(res.body.errors).toBeUndefined();
    for (const q of res.body.data.quotes as { symbol: string; type: string; metrics: Record<string, unknown> }[]) {
      if (q.metrics === null) continue;
      expect(q.type).toBe("stock");
      for (const k of REQUIRED)
        expect({ s: q.symbol, k, type: typeof q.metrics[k] }).toEqual({ s: q.symbol, k, type: "number" });
      const rest = await t.post("/v1/quote", { symbol: q.symbol });
      expect(rest.body.metrics["pe/ratio"] ?? null).toBe(q.metrics.peRatio);
    }
    const byId = new Map((res.body.data.quotes as { symbol: string; metrics: unknown }[]).map((q) => [q.symbol, q]));
    expect(byId.get(withoutEps)!.metrics).toBeNull();
    expect(byId.get(lossMaking)!.metrics).toMatchObject({ eps: -0.5, peRatio: null });
  });
});
