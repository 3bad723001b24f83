import { Writable } from "node:stream";
import { importProgress, PLAIN_EVERY_MS } from "../../../src/application/import/import.progress";

describe("import progress", () => {
  it("writes a plain line every few seconds without a terminal: rows, rate, rejections, time left", () => {
    let now = 0;
    const lines: string[] = [];
    const p = importProgress(
      "daily-bars",
      false,
      (l) => lines.push(l),
      process.stderr,
      () => now,
    );
    now = 1_000;
    p.update({ rows: 1_000, rejected: 0, bytes: 10, totalBytes: 100 });
    expect(lines).toEqual([]);
    now = PLAIN_EVERY_MS;
    p.update({ rows: 50_000, rejected: 3, bytes: 50, totalBytes: 100 });
    now = PLAIN_EVERY_MS + 1_000;
    p.update({ rows: 60_000, rejected: 3, bytes: 60, totalBytes: 100 });
    expect(lines).toEqual(["import daily-bars: 50% | 50000 rows | 10000 rows/s | 3 rejected | about 5 s left"]);
  });

  it("draws a bar on a terminal", () => {
    let text = "";
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        text += chunk.toString();
        done();
      },
    });
    Object.assign(stream, { isTTY: true, columns: 200, cursorTo: () => true, clearLine: () => true });
    let now = 0;
    const p = importProgress(
      "fx",
      true,
      () => undefined,
      stream,
      () => now,
    );
    now = 4_000;
    p.update({ rows: 2_000, rejected: 1, bytes: 40, totalBytes: 100 });
    p.stop();
    expect(text).toMatch(/import fx \[.*\] 40% \| 2000 rows \| 500 rows\/s \| 1 rejected \| about 6 s left/);
  });
});
