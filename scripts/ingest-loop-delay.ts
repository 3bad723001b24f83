/**
 * The longest the event loop is held while the service runs a scheduled ECB history ingest: the scheduler of
 * MDG_INGEST runs `ecb:hist` once (its `runNow`) into a copy of a SQLite store, from a local server answering the
 * given `eurofxref-hist.zip`, under perf_hooks.monitorEventLoopDelay.
 *
 *   node -r @swc-node/register scripts/ingest-loop-delay.ts <eurofxref-hist.zip> <store.db>
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { openIngestSink } from "../src/application/cli/ingest.cli";
import { createIngestScheduler } from "../src/application/ingest/ingest.service";
import { loadConfig } from "../src/platform/config";

async function main(): Promise<void> {
  const [zipPath, storePath] = process.argv.slice(2);
  if (!zipPath || !storePath) throw new Error("usage: ingest-loop-delay.ts <eurofxref-hist.zip> <store.db>");
  const zip = readFileSync(zipPath);
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/zip" });
    res.end(zip);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const dir = mkdtempSync(join(tmpdir(), "mdg-loop-"));
  const store = join(dir, "market.db");
  copyFileSync(storePath, store);
  const config = loadConfig({
    MDG_SQLITE_PATH: store,
    MDG_PROVIDER_ECB_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    MDG_INGEST: "ecb:hist=30 16 * * 1-5@Europe/Berlin",
    LOG_LEVEL: "silent",
  });
  const { scheduler } = createIngestScheduler({
    config,
    openSink: () => openIngestSink(config),
    log: { info: () => undefined, error: (l) => console.error(l) },
  });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const started = performance.now();
  await scheduler.runNow("ecb:hist");
  const ms = performance.now() - started;
  delay.disable();
  const [job] = scheduler.status();
  const r = job!.lastRun!;
  const rows = r.rows.inserted + r.rows.changed + r.rows.unchanged;
  const at = (p: number) => (delay.percentile(p) / 1e6).toFixed(1);
  console.log(
    `ecb hist: ${r.outcome}, ${rows} rows in ${(ms / 1000).toFixed(1)} s; event-loop delay max ` +
      `${(delay.max / 1e6).toFixed(1)} ms, p99 ${at(99)} ms, p50 ${at(50)} ms (${delay.count} samples)`,
  );
  await scheduler.stop();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
