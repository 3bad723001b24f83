import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * One full garbage collection, now. V8 offers it only behind --expose-gc; turning that flag on at run time and calling
 * `gc` from a fresh context works in any thread without changing how the process is started (main.ts does the same).
 * A build calls it where most of its heap has just died, so the heap's next limit is set from what lives.
 */
export function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}
