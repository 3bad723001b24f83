/**
 * One measured run of the provider bench (scripts/bench/providers.bench.ts), in a process of its own so that its peak
 * RSS is its own: `ingest <args…>` runs the ingest CLI's `main`, `import <kind> <file> [<kind> <file> …]` the import
 * CLI's `main` once per file, in process, against the store the environment names. Prints one JSON line:
 * `{"ms", "maxRssKiB", "maxLoopMs", "code", "lines"}`; `ms` is the time inside `main` (module loading left out, as
 * alike for both), `maxLoopMs` the longest the event loop was held meanwhile.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { main as ingestMain, openIngestSink } from "../../src/application/cli/ingest.cli";
import { main as importMain, openConfiguredSink } from "../../src/application/cli/import.cli";
import { loadConfig } from "../../src/platform/config";
import { closeWorkerPool, runInWorker, workerFile } from "../../src/platform/workers/worker.pool";
import { providerHttp } from "../../src/sources/providers/provider.registry";

async function run(): Promise<void> {
  const [mode, ...args] = process.argv.slice(2);
  const config = loadConfig();
  const lines: string[] = [];
  const out = { log: (l: string) => lines.push(l), error: (l: string) => lines.push(l) };
  let code = 0;
  // Modules the CLIs load on first use, loaded before the clock starts: both sides would load the same ones, and
  // under @swc-node/register each is compiled as it loads, which a built service does not do.
  await Promise.all([
    import("../../src/sources/source.factory"),
    import("../../src/sources/sqlite/sqlite.source"),
    import("../../src/sources/sqlite/sqlite.import"),
    import("../../src/sources/sqlite/sqlite.changes"),
  ]);
  // The SEC run parses in a worker thread: started, with its module loaded, before the clock too (a body that is not
  // JSON is answered as such), as the service's pool usually has it.
  if (mode === "ingest") {
    await runInWorker(
      workerFile(join(__dirname, "../../src/sources/providers/sec"), "sec.facts.worker"),
      { body: new Uint8Array() },
      "warm-up",
    );
  }
  // How long the event loop was held at a stretch: what a service running this job on a schedule would make every
  // request it answers meanwhile wait.
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
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
    for (let i = 0; i + 1 < args.length && code === 0; i += 2) {
      code = await importMain([args[i]!, args[i + 1]!], {
        openSink: () => openConfiguredSink(config),
        out,
        tty: false,
      });
    }
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  loop.disable();
  await closeWorkerPool();
  const maxLoopMs = loop.max / 1e6;
  console.log(JSON.stringify({ ms, maxRssKiB: process.resourceUsage().maxRSS, maxLoopMs, code, lines }));
}

run().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
