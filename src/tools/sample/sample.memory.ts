import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { fullGarbageCollection } from "../../platform/memory";

/**
 * How far V8 lets the old generation grow past what survived the last full collection while a store is built. By
 * default it grows by up to 4x on a machine with plenty of memory, so a build whose universe holds 120 MB could take
 * far more than that in heap before collecting; 10 % (25 % gives ~10 MiB more peak) costs a few more collections
 * (BENCHMARKS.md, "Sample store"). V8 flags are per process: the build sets it and puts back V8's
 * default (0, V8 chooses) when done, and the service sets its own once its store is open (main.ts).
 */
const BUILD_HEAP_GROWING_PERCENT = 10;

/** Runs `build` with the old generation held close to its live size (see BUILD_HEAP_GROWING_PERCENT). */
export function withTightHeap<T>(build: () => T): T {
  setFlagsFromString(`--heap-growing-percent=${BUILD_HEAP_GROWING_PERCENT}`);
  try {
    return build();
  } finally {
    setFlagsFromString("--heap-growing-percent=0");
  }
}

/** At most this many compacting collections per call of collectGarbage (each moves at most ~6 MB of live objects). */
const MAX_COMPACTIONS = 40;
/** Compaction stops once a collection gives back less heap than this. */
const MIN_RELEASED_BYTES = 1 << 20;

/**
 * A full garbage collection, now, then compaction in small steps. A build calls it where most of its heap has just
 * died, so the heap's next limit is set from what lives.
 *
 * A collection frees whole pages only: the survivors stay spread over the old ones (after the universe is let go,
 * 72 MB live in 172 MB of heap, all resident). V8 moves survivors off sparse pages only a few MB per collection, more
 * readily when optimizing for size; compacting everything at once (--compact-on-every-full-gc) copies every survivor
 * before a page is freed, a ~70-140 MiB spike above the peak it was meant to lower. So: collections under
 * --optimize-for-size until one gives back under a MiB (~18 MB of heap per collection measured).
 */
export function collectGarbage(): void {
  fullGarbageCollection();
  setFlagsFromString("--optimize-for-size");
  try {
    for (let i = 0, before = Infinity; i < MAX_COMPACTIONS; i++) {
      const total = getHeapStatistics().total_heap_size;
      if (before - total < MIN_RELEASED_BYTES) break;
      before = total;
      fullGarbageCollection();
    }
  } finally {
    setFlagsFromString("--no-optimize-for-size");
  }
}
