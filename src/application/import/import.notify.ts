import type { ImportCounts, ImportSink } from "../../domain/ports/source.import";

/** Says which symbols' quotes or bars a commit wrote (Redis notices to the replicas); never throws. */
export type NotifyChanged = (symbols: ReadonlySet<string>) => Promise<void>;

/**
 * The sink with a notice after each commit of quotes, daily bars or intraday bars that changed a row: the symbols of
 * the listings written, so that live subscribers of them are pushed the new quote at once. Rows name listings by id;
 * the run resolved every one of them through `findListing` first, so the symbols are those answers'. A listing the
 * run did not look up (none today) is left to the replicas' own look at the store.
 */
export function notifyingSink(sink: ImportSink, notify: NotifyChanged): ImportSink {
  const symbols = new Map<number, string>();
  const written = async <R extends { listingId: number }>(
    rows: readonly R[],
    upsert: (rows: readonly R[]) => Promise<ImportCounts>,
  ) => {
    const counts = await upsert(rows);
    if (counts.inserted + counts.changed === 0) return counts;
    const changed = new Set<string>();
    for (const r of rows) {
      const symbol = symbols.get(r.listingId);
      if (symbol !== undefined) changed.add(symbol);
    }
    if (changed.size > 0) await notify(changed);
    return counts;
  };
  const own: Partial<ImportSink> = {
    async findListing(symbol: string, exchange?: string) {
      const found = await sink.findListing(symbol, exchange);
      if (found) symbols.set(found.listingId, found.symbol);
      return found;
    },
    upsertQuotes: (rows) => written(rows, (r) => sink.upsertQuotes(r)),
    upsertDailyBars: (rows) => written(rows, (r) => sink.upsertDailyBars(r)),
    upsertIntradayBars: (rows) => written(rows, (r) => sink.upsertIntradayBars(r)),
  };
  // Every other method is the sink's own, called on the sink.
  return new Proxy(sink, {
    get(target, prop) {
      const mine = own[prop as keyof ImportSink];
      if (mine !== undefined) return mine;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
