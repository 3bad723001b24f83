/** Builds the generated sample as a SQLite file at `file` unless one is there; `built` says whether it did. */
export type SampleBuilder = (
  file: string,
  opts: { seed: number; anchorDate: string; scale: number; log?: (msg: string) => void; signal?: AbortSignal },
) => Promise<{ built: boolean; ms?: number }>;
