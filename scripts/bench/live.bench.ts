import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import Redis from "ioredis";
import WebSocket from "ws";

/**
 * The fan-out run (`BENCH_ONLY=live npm run bench`, printed): `subscribers` WebSocket clients over `symbols` symbols
 * (one subscription each, so `subscribers / symbols` per symbol) while `rate` quote changes a second arrive over Redis,
 * the way a change made on another replica arrives. The same clients, channels and changes then go to a bare `ws`
 * broadcast server (live-baseline.server.js). Measured for each: end-to-end delivery time (publish to arrival, p50 and
 * p99), the server's CPU per delivered message, and its peak RSS. One key with raised limits holds every connection
 * (MDG_WS_MAX_CONNECTIONS_PER_KEY, MDG_WS_MAX_SUBSCRIPTIONS): the limits are not what is measured.
 */
export interface LiveBenchOptions {
  /** How the service is started (`node dist/main.js` or from source). */
  startArgs: string[];
  port: number;
  baselinePort: number;
  store: string;
  redisUrl: string;
  subscribers: number;
  symbols: number;
  /** Changes a second, over all symbols. */
  rate: number;
  seconds: number;
  warmupSeconds: number;
  log: (line: string) => void;
}

const ROOT = join(__dirname, "..", "..");
const KEY = "bench-live-key-0123456789";
const TICKS_PER_SECOND = 100;

interface Measured {
  deliveries: number;
  p50: number;
  p99: number;
  cpuMsPerThousand: number;
  peakRssMiB: number;
}

export async function liveFanoutBench(opts: LiveBenchOptions): Promise<string[]> {
  const prefix = `mdg-bench-live-${process.pid}:`;
  const symbols = pickSymbols(opts.store, opts.symbols);
  const service = await measure(opts, symbols, prefix, "service", () =>
    spawn(process.execPath, opts.startArgs, {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: "production",
        HOST: "127.0.0.1",
        PORT: String(opts.port),
        MDG_SQLITE_PATH: opts.store,
        MDG_BOOTSTRAP_API_KEY: KEY,
        REDIS_URL: opts.redisUrl,
        MDG_REDIS_KEY_PREFIX: prefix,
        MDG_WS_MAX_CONNECTIONS_PER_KEY: String(opts.subscribers),
        MDG_WS_MAX_SUBSCRIPTIONS: String(opts.subscribers),
        MDG_MAX_CONNECTIONS: String(opts.subscribers + 100),
        MDG_SIMULATE_TICKS: "false",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "ignore", "inherit"],
    }),
  );
  const baseline = await measure(opts, symbols, prefix, "baseline", () =>
    spawn(process.execPath, [join(__dirname, "live-baseline.server.js")], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(opts.baselinePort), REDIS_URL: opts.redisUrl, MDG_REDIS_KEY_PREFIX: prefix },
      stdio: ["ignore", "ignore", "inherit"],
    }),
  );
  const what = `${opts.subscribers} subscribers, ${opts.symbols} symbols, ${opts.rate} changes/s over Redis`;
  const row = (name: string, m: Measured) =>
    `${name}: ${m.deliveries} deliveries, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, ` +
    `${m.cpuMsPerThousand.toFixed(2)} ms CPU per 1,000 deliveries, peak RSS ${m.peakRssMiB.toFixed(0)} MiB`;
  const cpuRatio = service.cpuMsPerThousand / Math.max(1e-9, baseline.cpuMsPerThousand);
  return [
    `live fan-out (${what}, ${opts.seconds} s):`,
    row("  service (WebSocket /v1)", service),
    row("  bare ws broadcast", baseline),
    `  CPU per delivery: ${cpuRatio.toFixed(2)}x the bare server (target at most 2x); ` +
      `p99 ${service.p99 <= 50 ? "met" : "missed"} (target under 50 ms); ` +
      `RSS ${service.peakRssMiB < 300 ? "met" : "missed"} (target under 300 MiB)`,
  ];
}

async function measure(
  opts: LiveBenchOptions,
  symbols: { symbol: string; quote: Record<string, unknown> }[],
  prefix: string,
  which: "service" | "baseline",
  start: () => ChildProcess,
): Promise<Measured> {
  const child = start();
  const port = which === "service" ? opts.port : opts.baselinePort;
  const clients: WebSocket[] = [];
  const publisher = new Redis(opts.redisUrl);
  let timer: NodeJS.Timeout | undefined;
  try {
    await waitListening(port, child);
    opts.log(`live fan-out: ${which} up; connecting ${opts.subscribers} subscribers`);
    const latencies: number[] = [];
    let counting = false;
    await Promise.all(
      Array.from({ length: opts.subscribers }, (_, i) => {
        const symbol = symbols[i % symbols.length]!.symbol;
        return new Promise<void>((resolve, reject) => {
          const url = `ws://127.0.0.1:${port}${which === "service" ? "/v1" : "/"}`;
          const ws = new WebSocket(url, { headers: { "x-api-key": KEY } });
          clients.push(ws);
          ws.on("error", reject);
          ws.on("open", () =>
            ws.send(
              JSON.stringify(which === "service" ? { action: "subscribe", channel: "quote", symbol } : { symbol }),
            ),
          );
          ws.on("message", (data) => {
            const m = JSON.parse(String(data)) as { channel?: string; data?: { v?: number }; status?: number };
            if (m.channel === "quote") {
              if (counting) latencies.push(Date.now() - (m.data?.v ?? 0));
            } else if (which === "baseline" || m.status === 200) resolve();
            else reject(new Error(`subscribe refused: ${String(data).slice(0, 200)}`));
          });
        });
      }),
    );
    opts.log(`live fan-out: ${which}: every subscriber subscribed; publishing ${opts.rate} changes/s`);
    let next = 0;
    let owed = 0;
    timer = setInterval(() => {
      owed += opts.rate / TICKS_PER_SECOND;
      for (; owed >= 1; owed--) {
        const { symbol, quote } = symbols[next++ % symbols.length]!;
        // The send time rides in the volume: the client reads it back from the push.
        const wire = { from: "bench", origin: "store", quote: { ...quote, v: Date.now() } };
        void publisher.publish(`${prefix}live:${symbol}`, JSON.stringify(wire));
      }
    }, 1_000 / TICKS_PER_SECOND);
    await sleep(opts.warmupSeconds * 1_000);
    const cpuBefore = cpuMs(child.pid!);
    counting = true;
    await sleep(opts.seconds * 1_000);
    counting = false;
    const cpu = cpuMs(child.pid!) - cpuBefore;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
    return {
      deliveries: latencies.length,
      p50: at(0.5),
      p99: at(0.99),
      cpuMsPerThousand: (cpu / Math.max(1, latencies.length)) * 1_000,
      peakRssMiB: peakRss(child.pid!) / 1_024,
    };
  } finally {
    clearInterval(timer);
    for (const ws of clients) ws.terminate();
    publisher.disconnect();
    child.kill("SIGTERM");
    if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
  }
}

/** The first stocks' symbols and their quotes in the wire form the relay carries (the service's Quote's fields). */
function pickSymbols(store: string, n: number): { symbol: string; quote: Record<string, unknown> }[] {
  const db = new Database(store, { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT l.symbol, l.exchange, l.currency, s.id, s.name, s.isin, q.c, q.o, q.h, q.l, q.pc, q.t, q.v
         FROM listings l JOIN securities s ON s.id = l.security_id JOIN quotes q ON q.listing_id = l.id
         WHERE s.type = 'stock' AND l.is_primary = 1 ORDER BY s.id LIMIT ?`,
      )
      .all(n) as Record<string, number | string | null>[];
    return rows.map((r) => ({
      symbol: String(r.symbol),
      quote: {
        symbol: r.symbol,
        name: r.name,
        type: "stock",
        isin: r.isin,
        c: r.c,
        d: Number(r.c) - Number(r.pc),
        dp: ((Number(r.c) - Number(r.pc)) / Number(r.pc)) * 100,
        h: r.h,
        l: r.l,
        o: r.o,
        pc: r.pc,
        t: r.t,
        v: r.v,
        currency: r.currency,
        exchange: r.exchange,
        earningsAnnouncement: null,
        historicalPrice: { day: r.c, fiftyDays: null, twoHundredDays: null },
        securityId: r.id,
        securityType: "stock",
        marketCap: null,
        sharesOutstanding: null,
        avgVolume: null,
        epsTtm: null,
        netIncomeTtm: null,
      },
    }));
  } finally {
    db.close();
  }
}

async function waitListening(port: number, child: ChildProcess): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.status === 200 || res.status === 404) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error("the server was not ready within 120 s");
}

/** User and system CPU of a process so far, in milliseconds (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1_000) / 100;
}

/** Peak resident set of a process, KiB (Linux VmHWM). */
function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
