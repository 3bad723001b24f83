import { crc32 } from "node:zlib";
import type { Pool } from "pg";
import type { JobLocks } from "../../domain/ports/source.locks";

/** The first key of every job lock (`mdj`), apart from the migrations' (postgres.migrate.ts, `mdg`). */
const JOB_LOCK_SPACE = 0x6d646a;

/** The lock of job `name`: the space, and the name's CRC-32 as a signed 32-bit integer. */
export function jobLockKey(name: string): readonly [number, number] {
  return [JOB_LOCK_SPACE, crc32(Buffer.from(name, "utf8")) | 0];
}

/**
 * A session-level advisory lock per job (`pg_try_advisory_lock`), held on a client of its own for the whole run
 * and released after it: a run can last minutes, longer than any transaction should. A replica whose process dies
 * loses its session, and the lock with it. The slot claim is a row of `meta` (`ingest-slot:<name>`), advanced only
 * forward under the lock: a replica whose timer fires a little later, after the first one's run has ended, finds
 * the slot taken and skips it. Session locks need a session: through PgBouncer, point the service at a pool in
 * session mode.
 */
export function postgresJobLocks(pool: Pool): JobLocks {
  return {
    async runExclusive(name, slot, work) {
      const client = await pool.connect();
      const key = jobLockKey(name);
      let broken: Error | undefined;
      try {
        const got = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS ok", [...key]);
        if (!got.rows[0]?.ok) return "busy";
        try {
          if (slot !== undefined) {
            const claimed = await client.query(
              `INSERT INTO meta (key, value) VALUES ($1, $2)
               ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE meta.value < EXCLUDED.value`,
              [`ingest-slot:${name}`, slot],
            );
            if (claimed.rowCount === 0) return "claimed";
          }
          await work();
          return "ran";
        } finally {
          try {
            await client.query("SELECT pg_advisory_unlock($1, $2)", [...key]);
          } catch (e) {
            // Released with the session: the client is closed instead of going back to the pool holding the lock.
            broken = e instanceof Error ? e : new Error(String(e));
          }
        }
      } finally {
        client.release(broken);
      }
    },
  };
}
