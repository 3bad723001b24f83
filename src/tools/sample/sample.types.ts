/** Public types of the sample store. */

export interface SampleOptions {
  seed: number;
  /** `YYYY-MM-DD`: the "today" of the data set; history ends here. */
  anchorDate: string;
  onProgress?: (done: number, total: number, stage: string) => void;
  /**
   * Shrinks every count (0 < scale <= 1) so tests can build a small but
   * complete store in seconds (MDG_SAMPLE_SCALE). The default 1 is the
   * documented data set.
   */
  scale?: number;
  /**
   * Runs the paths built only for their quote in a helper thread too (default true); false keeps the build in the
   * calling thread. Either gives the same store.
   */
  helperThread?: boolean;
}

export interface SampleSummary {
  seed: number;
  anchorDate: string;
  historyStart: string;
  generatorVersion: string;
  scale: number;
  /** Rows written per table. */
  rows: Record<string, number>;
}
