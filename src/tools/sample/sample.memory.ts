import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * How far V8 lets the old generation grow past what survived the last full collection while a store is built. By
 * default it grows by up to 4x on a machine with plenty of memory, so a build whose universe holds 120 MB could take
 * far more than that in heap before collecting; 25 % costs a few more collections (BENCHMARKS.md, "Sample build
 * memory"). V8 flags are per process: the build sets it and puts back V8's default (0, V8 chooses) when done, and the
 * service sets its own once its store is open (main.ts).
 */
const BUILD_HEAP_GROWING_PERCENT = 25;

/** Runs `build` with the old generation held close to its live size (see BUILD_HEAP_GROWING_PERCENT). */
export function withTightHeap<T>(build: () => T): T {
  setFlagsFromString(`--heap-growing-percent=${BUILD_HEAP_GROWING_PERCENT}`);
  try {
    return build();
  } finally {
    setFlagsFromString("--heap-growing-percent=0");
  }
}

/**
 * One full garbage collection, now. V8 offers it only behind --expose-gc; turning that flag on at run time and calling
 * `gc` from a fresh context works in any thread without changing how the process is started (main.ts does the same).
 * A build calls it where most of its heap has just died, so the heap's next limit is set from what lives.
 */
export function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}
