import "reflect-metadata";
import { existsSync, readFileSync } from "node:fs";
import { Agent } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { serve } from "./pricing.probe";
import { benchPortfolio } from "./portfolio.bench";
import { post, quantile } from "./screener.bench";
import { closeWorkerPool } from "../../src/platform/workers/worker.pool";

/**
 * How long one portfolio call holds the event loop (BENCHMARKS.md "Portfolio"): the portfolio bench's 50 positions
 * over ten years, in this process over HTTP, as portfolio.bench.ts serves them.
 *
 * `node -r @swc-node/register scripts/bench/portfolio-loop.probe.ts STORE [stats|chart] [calls]` (defaults: stats,
 * 10) on a full sample store (`BENCH_ONLY=portfolio npm run bench` builds one). After three unmeasured calls:
 * - each measured call alone under its own `monitorEventLoopDelay` (1 ms resolution): its longest hold and its wall
 *   time;
 * - on Linux, as many again with a tick on every turn of the loop that reads the main thread's CPU time
 *   (/proc/self/task/<pid>/schedstat): the most any one turn used. On a shared machine a hold in wall time can include
 *   time the thread was not running at all; this counts only the thread's own work;
 * - as many again with a second client asking a quote back to back on its own connection: how many quotes were
 *   answered while each call ran, and the slowest of them.
 */

const KEY = "portfolio-loop-probe-key-0123456789abcdef";
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/** The main thread's CPU time in ms (its task id is the process id). */
const threadMs = () => Number(readFileSync(SCHEDSTAT, "utf8").split(" ")[0]) / 1e6;

/** Until `stop()`, a tick on every turn of the event loop: the most main-thread CPU any one turn took. */
function turnCpu(): { stop(): number } {
  let on = true;
  let last = threadMs();
  let most = 0;
  const tick = () => {
    if (!on) return;
    const now = threadMs();
    most = Math.max(most, now - last);
    last = now;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop() {
      on = false;
      return Math.max(most, threadMs() - last);
    },
  };
}

async function main(): Promise<void> {
  const store = process.argv[2];
  if (!store) throw new Error("usage: portfolio-loop.probe.ts STORE [stats|chart] [calls]");
  const what = process.argv[3] ?? "stats";
  const calls = Number(process.argv[4] ?? 10);
  const served = await serve(store, { MDG_REQUEST_TIMEOUT_MS: "600000" }, 0, KEY);
  const port = (served.server.address() as AddressInfo).port;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const quoteAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { symbols, portfolio } = benchPortfolio(served.source);
    const path = `/v1/portfolio/${what}`;
    const body = what === "chart" ? { ...portfolio, resolution: "M" } : portfolio;
    const quote = { symbol: symbols[0] };
    for (let i = 0; i < 3; i++) await post(agent, port, path, body, KEY);

    const holds: number[] = [];
    const walls: number[] = [];
    for (let i = 0; i < calls; i++) {
      const h = monitorEventLoopDelay({ resolution: 1 });
      h.enable();
      walls.push((await post(agent, port, path, body, KEY)).ms);
      h.disable();
      holds.push(h.max / 1e6);
    }
    const cpus: number[] = [];
    if (existsSync(SCHEDSTAT)) {
      for (let i = 0; i < calls; i++) {
        const ticker = turnCpu();
        await post(agent, port, path, body, KEY);
        cpus.push(ticker.stop());
      }
    }

    // Its connection opened now: one idle through the calls above would be closed by the server's keep-alive timeout.
    await post(quoteAgent, port, "/v1/quote", quote, KEY);
    const answered: number[] = [];
    let slowest = 0;
    for (let i = 0; i < calls; i++) {
      let running = true;
      let n = 0;
      const quotes = (async () => {
        while (running) {
          const { ms } = await post(quoteAgent, port, "/v1/quote", quote, KEY);
          if (running) {
            n++;
            slowest = Math.max(slowest, ms);
          }
        }
      })();
      await post(agent, port, path, body, KEY);
      running = false;
      await quotes;
      answered.push(n);
    }

    const f = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");
    console.log(`${path}, ${symbols.length} positions, ${calls} calls on ${store}`);
    console.log(`  longest hold of the event loop per call (ms): ${f(holds)}; max ${Math.max(...holds).toFixed(0)}`);
    if (cpus.length > 0) {
      console.log(`  most main-thread CPU in one turn per call (ms): ${f(cpus)}; max ${Math.max(...cpus).toFixed(0)}`);
    }
    console.log(`  wall per call (ms): p50 ${quantile(walls, 0.5).toFixed(1)}, max ${Math.max(...walls).toFixed(1)}`);
    console.log(`  quotes answered during each call, asked back to back: ${answered.join(", ")}`);
    console.log(`  slowest of those quotes: ${slowest.toFixed(1)} ms`);
  } finally {
    agent.destroy();
    quoteAgent.destroy();
    await served.close();
    await closeWorkerPool();
  }
}

void main();
