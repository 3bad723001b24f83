import { SingleBar } from "cli-progress";

/** What the import shows while it runs. */
export interface ImportProgress {
  update(state: ProgressState): void;
  stop(): void;
}

export interface ProgressState {
  rows: number;
  rejected: number;
  /** Bytes of the files read so far, and their total: the share done, for the time left. */
  bytes: number;
  totalBytes: number;
}

/** Without a terminal, one line at most this often. */
export const PLAIN_EVERY_MS = 5_000;

/**
 * The time left from the average rate since the start (the sample build's rule, src/tools/sample/sample.store.ts,
 * which this module must not load: it is the generator). Nothing is promised before 5 % and 3 s.
 */
export function timeLeft(elapsedMs: number, done: number, total: number): string {
  if (total <= 0 || done <= 0 || done / total < 0.05 || elapsedMs < 3_000) return "estimating the time left";
  const seconds = Math.max(0, Math.round(((elapsedMs / done) * (total - done)) / 1000));
  if (seconds < 60) return `about ${seconds} s left`;
  return `about ${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s left`;
}

function rate(rows: number, elapsedMs: number): number {
  return elapsedMs > 0 ? Math.round((rows / elapsedMs) * 1000) : 0;
}

/**
 * A bar on a terminal (rows, rows per second, rejections, time left); otherwise a plain line every few seconds,
 * through `log`. The time left reads the bytes read against the files' sizes (compressed sizes for gzip files).
 */
export function importProgress(
  kind: string,
  tty: boolean,
  log: (line: string) => void,
  stream: NodeJS.WritableStream = process.stderr,
  now: () => number = Date.now,
): ImportProgress {
  const since = now();
  if (tty) {
    const bar = new SingleBar({
      format: `import ${kind} [{bar}] {percentage}% | {rows} rows | {rate} rows/s | {rejected} rejected | {remaining}`,
      stream,
      hideCursor: true,
      clearOnComplete: true,
    });
    let started = false;
    return {
      update(s) {
        const elapsed = now() - since;
        const payload = {
          rows: s.rows,
          rate: rate(s.rows, elapsed),
          rejected: s.rejected,
          remaining: timeLeft(elapsed, s.bytes, s.totalBytes),
        };
        if (!started) {
          bar.start(s.totalBytes, s.bytes, payload);
          started = true;
        }
        bar.update(s.bytes, payload);
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let last = since;
  return {
    update(s) {
      const t = now();
      if (t - last < PLAIN_EVERY_MS) return;
      last = t;
      const pct = s.totalBytes > 0 ? Math.floor((s.bytes / s.totalBytes) * 100) : 0;
      log(
        `import ${kind}: ${pct}% | ${s.rows} rows | ${rate(s.rows, t - since)} rows/s | ${s.rejected} rejected | ` +
          timeLeft(t - since, s.bytes, s.totalBytes),
      );
    },
    stop() {},
  };
}
