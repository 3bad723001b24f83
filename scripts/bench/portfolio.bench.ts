import "reflect-metadata";
import { Agent } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "./pricing.probe";
import { post, quantile } from "./screener.bench";
import type { SqliteSource } from "../../src/sources/sqlite/sqlite.source";

/**
 * `BENCH_ONLY=portfolio npm run bench`: the portfolio analytics of 50 positions over ten years against the sample
 * store, in this process over HTTP (one keep-alive connection), with two same-run baselines: a quote, and the
 * ETF metrics of one ETF over the same ten years (the maths a portfolio runs once over its summed value, after
 * reading and converting each position's bars). The question it answers: what 50 positions cost next to one.
 */

const KEY = "portfolio-bench-bootstrap-key-0123456789";
const ITEMS = 50;
const YEAR = 365 * 86_400;

interface Case {
  name: string;
  path: string;
  body: unknown;
}

export interface PortfolioBenchOptions {
  store: string;
  /** Measured rounds; each runs every case once. */
  rounds: number;
  log(msg: string): void;
}

/** The bench's portfolio on `source`: its 50 symbols, range and request body, and one ETF for the baseline. */
export function benchPortfolio(source: SqliteSource) {
  const pick = (type: string, n: number) =>
    source.db
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         JOIN quotes q ON q.listing_id = l.id WHERE s.type = ? ORDER BY s.rank, s.id LIMIT ?`,
      )
      .pluck()
      .all(type, n) as string[];
  // Mostly stocks, some ETFs and funds (the look-through's reading), in several currencies as the sample lists them.
  const symbols = [...pick("stock", 35), ...pick("etf", 10), ...pick("fund", 5)];
  if (symbols.length !== ITEMS) throw new Error(`portfolio bench: found ${symbols.length} of ${ITEMS} securities`);
  const q = source.db.prepare(`SELECT max(t) FROM quotes`).pluck().get() as number;
  const to = q - (q % 86_400);
  const from = to - 10 * YEAR;
  // Buy dates spread over the ten years, so positions enter one by one as a real portfolio's do.
  const items = symbols.map((symbol, i) => ({
    symbol,
    amount: 10 + i,
    buy_date: from + Math.floor((i * 9 * YEAR) / ITEMS),
  }));
  const portfolio = { portfolio_items: items, from, to, resolution: "D", currency: "EUR" };
  return { symbols, from, to, portfolio, etf: pick("etf", 1)[0]! };
}

export async function portfolioBench(o: PortfolioBenchOptions): Promise<{ lines: string[] }> {
  // REST serves a portfolio over the /graphql cost limit (its admission prices it as heavy work); the timeout is
  // lifted so a slow round is measured, not refused.
  const served = await serve(o.store, { MDG_REQUEST_TIMEOUT_MS: "600000" }, 0, KEY);
  const { source } = served;
  const port = (served.server.address() as AddressInfo).port;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { symbols, from, to, portfolio, etf } = benchPortfolio(source);
    const cases: Case[] = [
      { name: "quote (baseline)", path: "/v1/quote", body: { symbol: symbols[0] } },
      {
        name: "etf/metrics, one ETF, ten years, EUR (baseline)",
        path: "/v1/etf/metrics",
        body: { symbol: etf, from, to, resolution: "D", currency: "EUR" },
      },
      { name: "portfolio/stats, 50 positions, ten years", path: "/v1/portfolio/stats", body: portfolio },
      {
        name: "portfolio/chart, 50 positions, ten years, M",
        path: "/v1/portfolio/chart",
        body: { ...portfolio, resolution: "M" },
      },
      { name: "portfolio/sector, 50 positions, looked through", path: "/v1/portfolio/sector", body: portfolio },
    ];
    o.log(`portfolio bench: ${ITEMS} positions (35 stocks, 10 ETFs, 5 funds) over ${from}..${to} in ${o.store}`);
    for (let i = 0; i < Math.max(3, o.rounds / 10); i++)
      for (const c of cases) await post(agent, port, c.path, c.body, KEY);
    const times = new Map(cases.map((c): [string, number[]] => [c.name, []]));
    for (let r = 0; r < o.rounds; r++) {
      for (const c of cases) times.get(c.name)!.push((await post(agent, port, c.path, c.body, KEY)).ms);
    }
    const lines = [`| call | p50 ms | p99 ms |`, `|---|---|---|`];
    for (const [name, xs] of times)
      lines.push(`| ${name} | ${quantile(xs, 0.5).toFixed(1)} | ${quantile(xs, 0.99).toFixed(1)} |`);
    const p50 = (name: string) => quantile(times.get(name)!, 0.5);
    const stats = p50(cases[2]!.name);
    const one = p50(cases[1]!.name);
    lines.push(
      `${o.rounds} rounds; portfolio/stats of ${ITEMS} positions takes ${(stats / one).toFixed(1)}× one ETF's ` +
        `ten-year metrics at p50 (${((stats / one / ITEMS) * 100).toFixed(0)} % of ${ITEMS} separate ones)`,
    );
    return { lines };
  } finally {
    agent.destroy();
    await served.close();
  }
}
