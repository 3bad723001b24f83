/**
 * Store-wide locks of scheduled jobs, so that of the replicas sharing one store only one runs a job at a time, and
 * one run of each scheduled time (src/sources/postgres/postgres.locks.ts). A store without them (SQLite) is served
 * by one process, whose own jobs never overlap.
 */
export interface JobLocks {
  /**
   * Runs `work` while holding job `name`'s lock, unless another process holds it (`busy`) or, with `slot` (the
   * scheduled time, ISO), a run of that slot or a later one was already claimed by someone (`claimed`).
   */
  runExclusive(name: string, slot: string | undefined, work: () => Promise<void>): Promise<"ran" | "busy" | "claimed">;
}
