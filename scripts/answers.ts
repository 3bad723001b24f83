/**
 * `npm run answers -- [out.jsonl]`: every REST endpoint and a set of GraphQL operations, asked of the service in
 * process over the test store, with the answers written one JSON line each (status, the headers a client reads,
 * the body less its request id) and a digest of the whole printed at the end.
 *
 * Why: a change that must not change any answer (a refactor of the source layer, a new adapter) is checked by
 * running this before and after on the same store and comparing the files, line by line. The requests are fixed
 * by the store's contents alone (securities picked by SQL in a stable order), so two runs on one store ask the same.
 */
import "reflect-metadata";
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createTestApp } from "../test/helpers/app";
import { TEST_STORE_PATH } from "../test/helpers/constants";
import { corpus, KEPT_HEADERS, withoutRequestIds } from "./answers.corpus";

async function main(): Promise<void> {
  const out = process.argv[2] ?? "test-artifacts/answers.jsonl";
  const db = new Database(TEST_STORE_PATH, { readonly: true, fileMustExist: true });
  const asks = corpus(db);
  db.close();
  const t = await createTestApp();
  const lines: string[] = [];
  for (const a of asks) {
    let r = t.http.post(a.path).set("content-type", "application/json");
    const key = a.key === undefined ? "test-bootstrap-key-0123456789" : a.key;
    if (key !== null) r = r.set("x-api-key", key);
    const res = await (typeof a.body === "string" ? r.send(a.body) : r.send(JSON.stringify(a.body ?? {})));
    const headers = Object.fromEntries(
      KEPT_HEADERS.filter((h) => res.headers[h] !== undefined).map((h) => [h, res.headers[h]]),
    );
    lines.push(JSON.stringify({ name: a.name, status: res.status, headers, body: withoutRequestIds(res.body) }));
  }
  await t.close();
  const text = lines.join("\n") + "\n";
  writeFileSync(out, text);
  const statuses = new Map<number, number>();
  for (const l of lines) {
    const s = (JSON.parse(l) as { status: number }).status;
    statuses.set(s, (statuses.get(s) ?? 0) + 1);
  }
  const digest = createHash("sha256").update(text).digest("hex");
  console.log(`${lines.length} answers (${[...statuses].map(([s, n]) => `${n}× ${s}`).join(", ")}) → ${out}`);
  console.log(`sha256 ${digest}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
