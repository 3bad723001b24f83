// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { openSources, type Sources } from "../../../src/app.sources";
import { IngestScheduler, type JobRunResult } from "../../../src/application/ingest/ingest.scheduler";
import { loadConfig } from "../../../src/platform/config";
import { providerHttp } from "../../../src/sources/providers/provider.registry";
import { createTestDatabase, type TestDatabase } from "../../helpers/postgres";
import { type ProviderServer, serve, startProviderServer } from "../../helpers/providers";

/**
 * Two replicas of the service on one PostgreSQL database, each with the same MDG_INGEST job. Each job's work is one
 * call to the local ECB (the hits counted there) and a count of its own: the lock and the claim around it are the
 * scheduler's code path for any work (the ECB ingest itself into PostgreSQL: ingest.ecb.postgres.spec.ts).
 */
const GATED = !process.env.DATABASE_URL;
if (GATED) console.warn("SKIPPED ingest.scheduler.pg.spec.ts: DATABASE_URL is unset");
const RUN = GATED ? describe.skip : describe;

const DAILY = "/stats/eurofxref/eurofxref-daily.xml";
const DAILY_XML = readFileSync(join(__dirname, "..", "..", "fixtures", "providers", "ecb", "eurofxref-daily.xml"));
const JOB = "ecb:daily";

let db: TestDatabase;
let server: ProviderServer;
const replicas: { sources: Sources; scheduler: IngestScheduler; runs: number }[] = [];
/** When set, a run waits for it before answering: a run that lasts. */
let gate: Promise<void> | undefined;
let failNext = false;

beforeAll(async () => {
  if (GATED) return;
  server = await startProviderServer({ [DAILY]: serve(DAILY_XML, "text/xml") });
  db = await createTestDatabase("schedule");
  for (let i = 0; i < 2; i++) {
    const config = loadConfig({
      MDG_DATA_SOURCE: "postgres",
      DATABASE_URL: db.url,
      MDG_PG_POOL_SIZE: "3",
      MDG_PROVIDER_ECB_URL: server.url,
      MDG_PROVIDER_RETRIES: "0",
      MDG_INGEST: `${JOB}=30 16 * * 1-5@Europe/Berlin`,
      LOG_LEVEL: "silent",
    });
    const sources = await openSources(config, { buildSample: false });
    const replica = { sources, scheduler: undefined as unknown as IngestScheduler, runs: 0 };
    const http = providerHttp("ecb", config.providers);
    replica.scheduler = new IngestScheduler({
      jobs: config.ingest.jobs,
      retries: 0,
      retryBaseMs: 1,
      locks: sources.locks,
      log: { info: () => undefined, error: () => undefined },
      work: async (): Promise<JobRunResult> => {
        replica.runs++;
        await http.get(DAILY);
        await gate;
        if (failNext) {
          failNext = false;
          throw new Error("the run failed");
        }
        return { dataset: "daily", rows: { inserted: 0, changed: 0, unchanged: 0 }, rejected: 0 };
      },
    });
    replicas.push(replica);
  }
});

afterAll(async () => {
  if (GATED) return;
  for (const r of replicas) {
    await r.scheduler.stop();
    await r.sources.close();
  }
  await db?.drop();
  await server?.close();
});

beforeEach(() => {
  if (GATED) return;
  server.hits.clear();
  for (const r of replicas) r.runs = 0;
});

const [a, b] = [0, 1].map((i) => () => replicas[i]!);
let minute = 0;
/** A scheduled time of its own for each firing (the job's timers on both replicas fire for the same one). */
const nextSlot = () => new Date(Date.UTC(2026, 0, 5, 15, 30 + minute++));

async function advisoryLocksHeld(): Promise<number> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    // The two-key form's first key is classid; other databases' locks (other suites) are not ours.
    const r = await client.query(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND classid = 7169130
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    return r.rows[0].n as number;
  } finally {
    await client.end();
  }
}

RUN("a scheduled job across two replicas on PostgreSQL", () => {
  it("fires once when both replicas' timers fire for the same time", async () => {
    const slot = nextSlot();
    await Promise.all([a().scheduler.runNow(JOB, slot), b().scheduler.runNow(JOB, slot)]);
    expect(server.hits.get(DAILY)).toBe(1);
    expect(a().runs + b().runs).toBe(1);
    expect(await advisoryLocksHeld()).toBe(0);
  });

  it("fires once when one replica's timer fires after the other's run has ended", async () => {
    const slot = nextSlot();
    await a().scheduler.runNow(JOB, slot);
    await b().scheduler.runNow(JOB, slot);
    expect(server.hits.get(DAILY)).toBe(1);
    expect([a().runs, b().runs]).toEqual([1, 0]);
    // The next scheduled time runs again, on whichever replica gets there first.
    await b().scheduler.runNow(JOB, nextSlot());
    expect(server.hits.get(DAILY)).toBe(2);
  });

  it("skips while another replica's run of the job is still going, and runs once it is released", async () => {
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    const first = a().scheduler.runNow(JOB, nextSlot());
    try {
      while ((server.hits.get(DAILY) ?? 0) < 1) await new Promise((r) => setTimeout(r, 5));
      // A later time fires on the other replica while the first run holds the job: skipped, no call made.
      await b().scheduler.runNow(JOB, nextSlot());
      expect(b().runs).toBe(0);
      expect(b().scheduler.status()[0]!.running).toBe(false);
    } finally {
      release();
      gate = undefined;
      await first;
    }
    expect(server.hits.get(DAILY)).toBe(1);
    await b().scheduler.runNow(JOB, nextSlot());
    expect(b().runs).toBe(1);
    expect(await advisoryLocksHeld()).toBe(0);
  });

  it("releases the lock after a failed run, and the status of the replica that ran shows the error", async () => {
    failNext = true;
    await a().scheduler.runNow(JOB, nextSlot());
    expect(a().scheduler.status()[0]!.lastRun).toMatchObject({ outcome: "failed", error: "the run failed" });
    expect(await advisoryLocksHeld()).toBe(0);
    await b().scheduler.runNow(JOB, nextSlot());
    expect(b().scheduler.status()[0]!.lastRun).toMatchObject({ outcome: "ok" });
  });
});
