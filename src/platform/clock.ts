/** The service's only source of "now", injected so tests can stand on either side of a date. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(iso: string): Clock {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) throw new Error(`fixedClock: invalid date ${iso}`);
  return { now: () => new Date(at.getTime()) };
}
