import { ensureSampleStore } from "../../src/tools/sample/sample.store";

/**
 * A sample store build in a process of its own that kills itself (SIGKILL: no exit handler runs, as with `kill -9`)
 * once the build reaches a stage:
 *   node -r @swc-node/register test/helpers/sample-build.ts STORE STAGE
 * STAGE is a progress stage of the build (`planning`, `fx rates`, …, `done`) or `start`, when the lock is taken and
 * the build's worker not yet started. Prints each stage it sees on stdout. Exits 3 if the build ends first.
 */
const [store, killAt] = process.argv.slice(2);
if (store === undefined || killAt === undefined) {
  process.stderr.write("usage: sample-build.ts STORE STAGE\n");
  process.exit(2);
}
const kill = () => process.kill(process.pid, "SIGKILL");
let last = "";

void ensureSampleStore(store, {
  seed: 3,
  anchorDate: "2026-11-20",
  scale: 0.001,
  log: (msg) => {
    if (killAt === "start" && msg.startsWith("Building sample store")) kill();
  },
  onProgress: (_done, _total, stage) => {
    if (stage !== last) process.stdout.write(`${(last = stage)}\n`);
    if (stage === killAt) kill();
  },
}).then(() => process.exit(3));
