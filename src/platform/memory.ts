import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | undefined;

/**
 * One full garbage collection, now. V8 offers `gc` only behind --expose-gc; turning that flag on at run time and
 * taking it from a fresh context works in any thread without changing how the process is started. The function is
 * kept: a context per call would cost more than some of the collections asked of it (sample.memory.ts).
 */
export function fullGarbageCollection(): void {
  if (!gc) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
}
