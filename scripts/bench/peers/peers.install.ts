import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The peer servers (mercurius, fastify, graphql-yoga, sofa-api) are a package of their own in this folder, so that the
 * root `npm install` does not pull them for every user of the service. The bench installs them from this folder's
 * lock file before its peer section, and again whenever the lock file changed since (a stamp in node_modules holds
 * the lock file's hash). The folder's .npmrc keeps npm from installing a second graphql here: the peers resolve the
 * root's copy, the one the service's schema is built with.
 */
export const PEERS_DIR = __dirname;
const STAMP = join(PEERS_DIR, "node_modules", ".mdg-lock-sha256");

export function installPeers(log: (msg: string) => void): void {
  const lock = createHash("sha256")
    .update(readFileSync(join(PEERS_DIR, "package-lock.json")))
    .digest("hex");
  if (existsSync(STAMP) && readFileSync(STAMP, "utf8") === lock) return;
  log("peers: installing the peer servers (npm ci in scripts/bench/peers)");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const run = spawnSync(npm, ["ci", "--no-audit", "--no-fund", "--legacy-peer-deps"], {
    cwd: PEERS_DIR,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (run.status !== 0) throw new Error(`peers: npm ci in ${PEERS_DIR} failed (${run.status ?? run.signal})`);
  writeFileSync(STAMP, lock);
}
