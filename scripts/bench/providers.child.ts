/**
 * One measured run of the provider bench (scripts/bench/providers.bench.ts), in a process of its own so that its peak
 * RSS is its own: `ingest <args…>` runs the ingest CLI's `main`, `import <kind> <file>… [+ <kind> <file>… …]` the
 * import CLI's `main` once per kind, in process, against the store the environment names. Prints one JSON line:
 * `{"ms", "maxRssKiB", "maxLoopMs", "code", "lines"}`; `ms` is the time inside `main` (module loading left out, as
 * alike for both), `maxLoopMs` the longest the event loop was held meanwhile.
 *
 * With BENCH_REPEAT=n (and the store the environment names existing), the run is made n times in the one process,
 * each on a fresh copy of that store: `ms` is the median of the runs after the first, those of a process whose code
 * V8 has compiled (a service's scheduler on its later runs, a long run's later companies), `lines` the last run's.
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { main as ingestMain, openIngestSink } from "../../src/application/cli/ingest.cli";
import { main as importMain, openConfiguredSink } from "../../src/application/cli/import.cli";
import { loadConfig } from "../../src/platform/config";
import { closeWorkerPool, runInWorker, workerFile } from "../../src/platform/workers/worker.pool";
import { providerHttp } from "../../src/sources/providers/provider.registry";
import { median } from "./providers.bench";

/** `main` of the mode once, against the store at `store`: the time inside it, its exit code and its output. */
async function once(
  mode: string | undefined,
  args: string[],
  store: string,
): Promise<{ ms: number; code: number; lines: string[] }> {
  const config = loadConfig({ ...process.env, MDG_SQLITE_PATH: store });
  const lines: string[] = [];
  const out = { log: (l: string) => lines.push(l), error: (l: string) => lines.push(l) };
  let code = 0;
  const started = process.hrtime.bigint();
  if (mode === "ingest") {
    code = await ingestMain(args, {
      http: (name) => providerHttp(name, config.providers),
      storeExists: () => existsSync(config.sqlitePath),
      openSink: () => openIngestSink(config),
      out,
      tty: false,
    });
  } else if (mode === "import") {
    const groups: string[][] = [[]];
    for (const a of args) {
      if (a === "+") groups.push([]);
      else groups[groups.length - 1]!.push(a);
    }
    for (let i = 0; i < groups.length && code === 0; i++) {
      code = await importMain(groups[i]!, {
        openSink: () => openConfiguredSink(config),
        out,
        tty: false,
      });
    }
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, code, lines };
}

async function run(): Promise<void> {
  const [mode, ...args] = process.argv.slice(2);
  const store = loadConfig().sqlitePath;
  const repeat = Math.max(1, Number(process.env.BENCH_REPEAT ?? 1));
  // Modules the CLIs load on first use, loaded before the clock starts: both sides would load the same ones, and
  // under @swc-node/register each is compiled as it loads, which a built service does not do.
  await Promise.all([
    import("../../src/sources/source.factory"),
    import("../../src/sources/sqlite/sqlite.source"),
    import("../../src/sources/sqlite/sqlite.import"),
    import("../../src/sources/sqlite/sqlite.changes"),
  ]);
  // The SEC's company facts are read in a worker thread, fetched or imported: started, with its module loaded, before
  // the clock too (a body that is not JSON is answered as such), as the service's pool usually has it.
  await runInWorker(
    workerFile(join(__dirname, "../../src/sources/providers/sec"), "sec.facts.worker"),
    { body: new Uint8Array() },
    "warm-up",
  );
  // How long the event loop was held at a stretch: what a service running this job on a schedule would make every
  // request it answers meanwhile wait.
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let result = { ms: 0, code: 0, lines: [] as string[] };
  const times: number[] = [];
  for (let k = 0; k < repeat && result.code === 0; k++) {
    let at = store;
    if (repeat > 1) {
      mkdirSync(`${store}.runs/${k}`, { recursive: true });
      at = `${store}.runs/${k}/market.db`;
      copyFileSync(store, at);
    }
    result = await once(mode, args, at);
    times.push(result.ms);
  }
  const { code, lines } = result;
  const ms = repeat > 1 ? median(times.slice(1)) : times[0]!;
  loop.disable();
  await closeWorkerPool();
  const maxLoopMs = loop.max / 1e6;
  console.log(JSON.stringify({ ms, maxRssKiB: process.resourceUsage().maxRSS, maxLoopMs, code, lines }));
}

run().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
