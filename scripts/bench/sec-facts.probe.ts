import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCompanyFacts, quartersOf } from "../../src/sources/providers/sec/sec.facts";

/**
 * The SEC provider's work on one company, CPU only (BENCHMARKS.md "Providers against the importer"): reading Apple's
 * whole company facts (parseCompanyFacts) and deriving its quarters (quartersOf), as the worker thread does them,
 * measured as the CPU time of the thread that runs them (Linux's /proc/<pid>/task/<tid>/schedstat), so that other
 * load on a shared machine changes little. A process's first company is read before V8 has compiled the code, so
 * it is reported apart from the best of the next five.
 *
 * `node -r @swc-node/register scripts/bench/sec-facts.probe.ts [processes]` (default 8): each measurement a fresh
 * process; the least of each column over the processes is reported. The file:
 * `data/bench/CIK0000320193.companyfacts.json` (or BENCH_SEC_FACTS), as the providers bench reads it.
 */

const root = join(__dirname, "..", "..");
const facts = process.env.BENCH_SEC_FACTS ?? join(root, "data/bench/CIK0000320193.companyfacts.json");

/** Thread CPU ms of the calling thread (the main thread: its task id is the process id). */
const threadMs = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;

function measureHere(): number[] {
  const body = readFileSync(facts);
  const once = () => {
    const a = threadMs();
    const f = parseCompanyFacts(body);
    const b = threadMs();
    quartersOf(f);
    return [b - a, threadMs() - b];
  };
  const first = once();
  const later = [Infinity, Infinity];
  for (let k = 0; k < 5; k++) {
    const [p, d] = once();
    later[0] = Math.min(later[0]!, p!);
    later[1] = Math.min(later[1]!, d!);
  }
  return [...first, ...later];
}

if (process.argv[2] === "--one") {
  console.log(JSON.stringify(measureHere()));
} else {
  const processes = Number(process.argv[2] ?? 8);
  const least = [Infinity, Infinity, Infinity, Infinity];
  for (let n = 0; n < processes; n++) {
    // A fresh process each, so that every first company is a first one.
    const out = spawnSync(process.execPath, ["-r", "@swc-node/register", __filename, "--one"], {
      cwd: root,
      env: { ...process.env, BENCH_SEC_FACTS: facts },
      encoding: "utf8",
    });
    if (out.status !== 0) throw new Error(out.stderr);
    (JSON.parse(out.stdout.trim().split("\n").pop()!) as number[]).forEach(
      (v, k) => (least[k] = Math.min(least[k]!, v)),
    );
  }
  const [p1, d1, p, d] = least.map((v) => v.toFixed(1));
  console.log(
    `Apple's company facts, thread CPU ms, least of ${processes} processes: the first company parse ${p1}, derive ` +
      `${d1}; the next (best of 5) parse ${p}, derive ${d}`,
  );
}
