import Database from "better-sqlite3";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openIngestSink } from "../../../src/application/cli/ingest.cli";
import { createIngestScheduler } from "../../../src/application/ingest/ingest.service";
import { IngestScheduler } from "../../../src/application/ingest/ingest.scheduler";
import { loadConfig } from "../../../src/platform/config";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY, TEST_STORE_PATH } from "../../helpers/constants";
import { type ProviderServer, serve, startProviderServer, zipOf } from "../../helpers/providers";

const FIXTURES = join(__dirname, "..", "..", "fixtures", "providers", "ecb");
const HIST = "/stats/eurofxref/eurofxref-hist.zip";
const HIST_ZIP = zipOf("eurofxref-hist.csv", readFileSync(join(FIXTURES, "eurofxref-hist.csv")));

let dir: string;
let server: ProviderServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-schedule-"));
  server = await startProviderServer();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

let stores = 0;

/**
 * The service as main.ts wires it with MDG_INGEST: the scheduler writing into the service's own SQLite store (a
 * copy of the test store) through a connection of its own, its status on /v1/status and its metrics on /metrics.
 * Waits between retries are handed to the test (`waits`), which releases each: nothing waits on the clock.
 */
async function service(
  env: NodeJS.ProcessEnv = {},
  wrap: (opened: Awaited<ReturnType<typeof openIngestSink>>) => typeof opened = (o) => o,
) {
  const store = join(dir, `store-${++stores}.db`);
  copyFileSync(TEST_STORE_PATH, store);
  const config = loadConfig({
    MDG_SQLITE_PATH: store,
    MDG_PROVIDER_ECB_URL: server.url,
    MDG_PROVIDER_RETRIES: "0",
    MDG_INGEST: "ecb:hist=30 16 * * 1-5@Europe/Berlin",
    MDG_INGEST_RETRIES: "2",
    LOG_LEVEL: "silent",
    ...env,
  });
  const waits: { ms: number; release: () => void }[] = [];
  const lines: string[] = [];
  const { scheduler, metrics } = createIngestScheduler({
    config,
    openSink: async () => wrap(await openIngestSink(config)),
    log: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
    scheduler: {
      random: () => 0.5,
      sleep: (ms, signal) =>
        new Promise<void>((release) => {
          waits.push({ ms, release });
          signal.addEventListener("abort", () => release());
        }),
    },
  });
  const t = await createTestApp({
    storePath: store,
    deps: { ingestStatus: () => scheduler.status(), metricsRegistry: metrics?.registry },
  });
  return { store, scheduler, t, waits, lines };
}

function rows<T>(store: string, sql: string): T[] {
  const db = new Database(store, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

async function status(t: TestApp) {
  const res = await t.http.get("/v1/status").set("x-api-key", BOOTSTRAP_KEY);
  expect(res.status).toBe(200);
  return res.body.ingest;
}

/** Waits (without a clock) until the scheduler asks to wait before a retry. */
async function nextWait(waits: unknown[], n: number): Promise<void> {
  while (waits.length < n) await new Promise((r) => setImmediate(r));
}

describe("scheduled ingest inside the service", () => {
  beforeEach(() => {
    server.hits.clear();
    server.route(HIST, serve(HIST_ZIP, "application/zip"));
  });

  it("runs the CLI's ingest into the service's store; /v1/status and /metrics show the run", async () => {
    const s = await service();
    try {
      // Before any run: the schedule, its next run (16:30 in Berlin on a weekday), no run yet.
      const before = (await status(s.t))[0];
      expect(before).toMatchObject({ job: "ecb:hist", provider: "ecb", dataset: "hist", lastRun: null });
      s.scheduler.start();
      const next = (await status(s.t))[0].nextRun as number;
      const berlin = new Intl.DateTimeFormat("en-GB", {
        timeZone: "Europe/Berlin",
        weekday: "short",
        hour: "2-digit",
        minute: "2-digit",
      }).format(new Date(next * 1000));
      expect(berlin).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 16:30$/);

      await s.scheduler.runNow("ecb:hist");
      expect(server.hits.get(HIST)).toBe(1);
      // The recorded file's 2022-07-05 rate, in the service's store and on its REST door.
      expect(
        rows(
          s.store,
          `SELECT b.c FROM daily_bars b JOIN listings l ON l.id = b.listing_id
           WHERE l.symbol = 'EURUSD' AND b.t = unixepoch('2022-07-05')`,
        ),
      ).toEqual([{ c: 1.029 }]);
      const [job] = await status(s.t);
      expect(job.running).toBe(false);
      expect(job.lastError).toBeNull();
      expect(job.lastRun).toMatchObject({ outcome: "ok", dataset: "hist", attempt: 1, rejected: 0, error: null });
      // 310 rates, 590 bars and 59 quotes of the 59 pairs; the sample lists some pairs already.
      const written = job.lastRun.rows.inserted + job.lastRun.rows.changed + job.lastRun.rows.unchanged;
      expect(written).toBeGreaterThanOrEqual(310 + 590);
      expect(job.lastRun.endedAt).toBeGreaterThanOrEqual(job.lastRun.startedAt);

      const metrics = (await s.t.http.get("/metrics")).text;
      expect(metrics).toContain('mdg_ingest_runs_total{provider="ecb",dataset="hist",outcome="ok"} 1');
      expect(metrics).toContain(
        `mdg_ingest_rows_total{provider="ecb",dataset="hist",kind="inserted"} ${job.lastRun.rows.inserted}`,
      );
      expect(metrics).toContain('mdg_ingest_duration_seconds_count{provider="ecb",dataset="hist"} 1');
      expect(metrics).not.toContain("mdg_ingest_failures_total{");

      // A rerun of the same history changes nothing.
      await s.scheduler.runNow("ecb:hist");
      const [again] = await status(s.t);
      expect(again.lastRun.rows).toMatchObject({ inserted: 0, changed: 0 });
    } finally {
      await s.scheduler.stop();
      await s.t.close();
    }
  });

  it("retries a failing job with backoff, a bounded number of times, and the service keeps answering", async () => {
    server.route(HIST, (res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("upstream down");
    });
    const s = await service();
    const stock = rows<{ symbol: string }>(
      s.store,
      `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'stock' LIMIT 1`,
    )[0]!.symbol;
    const before = rows(s.store, `SELECT count(*) AS n FROM daily_bars`);
    try {
      const run = s.scheduler.runNow("ecb:hist");
      // Attempt 1 failed; while the job waits for its retry, the service answers as ever and says what happened.
      await nextWait(s.waits, 1);
      expect((await s.t.http.get("/healthz")).status).toBe(200);
      expect((await s.t.post("/v1/quote", { symbol: stock })).status).toBe(200);
      const [waiting] = await status(s.t);
      expect(waiting.running).toBe(true);
      expect(waiting.lastRun).toMatchObject({ outcome: "failed", attempt: 1 });
      expect(waiting.lastRun.error).toBe("ecb: GET /stats/eurofxref/eurofxref-hist.zip: answered 500 after 1 attempt");
      s.waits[0]!.release();
      await nextWait(s.waits, 2);
      s.waits[1]!.release();
      await run;
      // Full jitter (0.5 drawn) from 60 s, doubling: then no third wait, the attempts are spent.
      expect(s.waits.map((w) => w.ms)).toEqual([30_000, 60_000]);
      expect(server.hits.get(HIST)).toBe(3);
      const [job] = await status(s.t);
      expect(job).toMatchObject({ running: false, lastRun: { outcome: "failed", attempt: 3 } });
      expect(job.lastError.message).toContain("answered 500");
      expect(rows(s.store, `SELECT count(*) AS n FROM daily_bars`)).toEqual(before);
      expect((await s.t.post("/v1/quote", { symbol: stock })).status).toBe(200);
      const metrics = (await s.t.http.get("/metrics")).text;
      expect(metrics).toContain('mdg_ingest_runs_total{provider="ecb",dataset="hist",outcome="failed"} 3');
      expect(metrics).toContain('mdg_ingest_failures_total{provider="ecb",dataset="hist"} 3');

      // The provider is back: the next run succeeds, and the last error stays for the operator to see.
      server.route(HIST, serve(HIST_ZIP, "application/zip"));
      await s.scheduler.runNow("ecb:hist");
      const [back] = await status(s.t);
      expect(back.lastRun).toMatchObject({ outcome: "ok", attempt: 1, error: null });
      expect(back.lastError.message).toContain("answered 500");
    } finally {
      await s.scheduler.stop();
      await s.t.close();
    }
  });

  it("stopping ends a wait for a retry at once", async () => {
    server.route(HIST, (res) => {
      res.writeHead(503);
      res.end();
    });
    const s = await service();
    try {
      const run = s.scheduler.runNow("ecb:hist");
      await nextWait(s.waits, 1);
      await s.scheduler.stop();
      await run;
      expect(server.hits.get(HIST)).toBe(1);
    } finally {
      await s.t.close();
    }
  });
});

describe("a shutdown during a scheduled run", () => {
  beforeEach(() => {
    server.hits.clear();
    server.route(HIST, serve(HIST_ZIP, "application/zip"));
  });

  it("ends the run after the batch it is writing; the next run writes the rest", async () => {
    let stopped: Promise<boolean> | undefined;
    // The shutdown arrives while the run writes its first import (the rates), as SIGTERM would.
    const s = await service({}, (opened) => {
      const upsertFx = opened.sink.upsertFx.bind(opened.sink);
      opened.sink.upsertFx = async (rows) => {
        const counts = await upsertFx(rows);
        stopped ??= s.scheduler.stop(5_000);
        return counts;
      };
      return opened;
    });
    // The sample's own EUR/USD bar of that day until the ingest writes the ECB's fixing.
    const eurusd = `SELECT b.c FROM daily_bars b JOIN listings l ON l.id = b.listing_id
                    WHERE l.symbol = 'EURUSD' AND b.t = unixepoch('2022-07-05')`;
    try {
      await s.scheduler.runNow("ecb:hist");
      expect(await stopped).toBe(true);
      const [job] = await status(s.t);
      expect(job.lastRun).toMatchObject({ outcome: "failed", attempt: 1 });
      expect(job.lastRun.error).toBe("interrupted by the shutdown between two batches; the next run resumes");
      // The rates' batch went in whole; the pairs' bars never started.
      const [jpy] = rows<{ per_usd: number }>(
        s.store,
        `SELECT per_usd FROM fx_daily WHERE currency = 'JPY' AND day = '2022-07-05'`,
      );
      expect(jpy!.per_usd).toBeCloseTo(139.77 / 1.029, 10);
      expect(rows(s.store, eurusd)).not.toEqual([{ c: 1.029 }]);
      expect(s.waits).toHaveLength(0);

      // The service started again on the same store: its run writes what the first one left.
      const again = await service({ MDG_SQLITE_PATH: s.store });
      try {
        await again.scheduler.runNow("ecb:hist");
        expect((await status(again.t))[0].lastRun).toMatchObject({ outcome: "ok", error: null });
        expect(rows(s.store, eurusd)).toEqual([{ c: 1.029 }]);
      } finally {
        await again.scheduler.stop();
        await again.t.close();
      }
    } finally {
      await s.t.close();
    }
  });

  it("waits for a provider that does not answer only until its deadline", async () => {
    server.route(HIST, () => undefined);
    const s = await service({ MDG_PROVIDER_TIMEOUT_MS: "30000" });
    try {
      const run = s.scheduler.runNow("ecb:hist");
      while (!server.hits.get(HIST)) await new Promise((r) => setImmediate(r));
      expect(await s.scheduler.stop(50)).toBe(false);
      expect(s.lines).toContain("ingest: a run was still waiting on its provider after 50 ms");
      // What the store holds is untouched; the run ends on its own when the provider's socket closes.
      await server.close();
      await run;
      expect((await status(s.t))[0].lastRun).toMatchObject({ outcome: "failed" });
    } finally {
      server = await startProviderServer();
      await s.t.close();
    }
  });
});

describe("errors in /v1/status and the log hold no key", () => {
  it("hides key-like query parameters, configured secrets and URL passwords", async () => {
    const lines: string[] = [];
    const scheduler = new IngestScheduler({
      jobs: [{ name: "ecb", provider: "ecb", dataset: undefined, cron: "0 6 * * *", timezone: "UTC" }],
      retries: 0,
      retryBaseMs: 1,
      secrets: ["s3cr3t-key"],
      log: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
      work: async () => {
        throw new Error(
          "GET https://api.example.com/eod?symbol=AAPL&apikey=abc123&token=t0k failed; " +
            "header s3cr3t-key refused; store postgres://user:pa55@db/x unreachable",
        );
      },
    });
    await scheduler.runNow("ecb");
    const [job] = scheduler.status();
    const message = job!.lastRun!.error!;
    expect(message).toBe(
      "GET https://api.example.com/eod?symbol=AAPL&apikey=***&token=*** failed; " +
        "header *** refused; store postgres://***@db/x unreachable",
    );
    expect(job!.lastError!.message).toBe(message);
    const all = lines.join("\n");
    for (const secret of ["abc123", "t0k", "s3cr3t-key", "pa55"]) expect(all).not.toContain(secret);
  });
});
