import type { Clock } from "../../src/platform/clock";

/** A clock a test moves by hand (rate windows, quota days). */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(iso: string): void;
}

export function manualClock(iso: string): ManualClock {
  let at = new Date(iso).getTime();
  return {
    now: () => new Date(at),
    advance(ms) {
      at += ms;
    },
    set(to) {
      at = new Date(to).getTime();
    },
  };
}
