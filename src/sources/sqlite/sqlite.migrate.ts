import type { Database } from "better-sqlite3";
import { MIGRATIONS } from "./sqlite.migrations";

/** Applies the migrations not yet applied, each in its own transaction. Returns how many ran. */
export function migrate(db: Database): number {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `store schema version ${current} is newer than this build knows (${MIGRATIONS.length}); upgrade the service`,
    );
  }
  let ran = 0;
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
    ran++;
  }
  return ran;
}
