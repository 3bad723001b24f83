import { Quote } from "../quote/quote.types";
import type { LiveHub } from "./live.hub";

export interface StoreQuoteWatchOptions {
  /** How often the store's data version is read while someone is subscribed. */
  pollMs: number;
  /** The store's data version: it moves with every commit, whoever made it (an import, a provider run, SQL). */
  dataVersion: () => number;
  /** The latest quotes of these symbols as the store holds them, in order (null or an Error where there is none). */
  readQuotes: (symbols: readonly string[]) => Promise<readonly (Quote | Error | null)[]>;
  onError?: (err: unknown) => void;
}

/** What a push compares: a quote whose price, time, day range and volume are the same did not change. */
export const fingerprint = (q: Quote) => `${q.c} ${q.t} ${q.h} ${q.l} ${q.o} ${q.pc} ${q.v}`;

/**
 * Imports and provider runs write the store from another process (or a job of this one); each commit moves the
 * store's data version, the number the instrument cache already follows (`MarketDataSource.dataVersion`). While this
 * replica has subscribers, the version is read every `pollMs` (SQLite: `PRAGMA data_version`, microseconds; PostgreSQL:
 * the change feed's last version, no query); when it moved, the subscribed symbols' quotes are read in one batch and
 * those that differ from what was last seen are published, marked `store`. Symbols nobody subscribes to are never
 * read.
 */
export class StoreQuoteWatch {
  private readonly seen = new Map<string, string>();
  private version: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly hub: LiveHub,
    private readonly opts: StoreQuoteWatchOptions,
  ) {
    this.version = opts.dataVersion();
    hub.onDemand((symbol, wanted) => (wanted ? void this.baseline([symbol]) : this.seen.delete(symbol)));
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), this.opts.pollMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One look: publishes what changed since the last one, if the store moved. Resolves when done. */
  poll(): Promise<void> {
    return (this.running ??= this.look().finally(() => (this.running = undefined)));
  }

  private async look(): Promise<void> {
    let version: number;
    try {
      version = this.opts.dataVersion();
    } catch (err) {
      // The store closed under a tick already queued (shutdown, a test's teardown) or failed: reported, never thrown
      // out of a timer.
      this.opts.onError?.(err);
      return;
    }
    if (version === this.version) return;
    this.version = version;
    const symbols = this.hub.wanted();
    if (symbols.length === 0) return;
    let quotes: readonly (Quote | Error | null)[];
    try {
      quotes = await this.opts.readQuotes(symbols);
    } catch (err) {
      this.opts.onError?.(err);
      return;
    }
    symbols.forEach((symbol, i) => {
      const quote = quotes[i];
      if (!(quote instanceof Quote)) return;
      const now = fingerprint(quote);
      const before = this.seen.get(symbol);
      this.seen.set(symbol, now);
      if (before !== undefined && before !== now) this.hub.publish({ symbol, quote, origin: "store" });
    });
  }

  /** What a symbol's quote is when its first subscriber comes: a later commit is compared with it. */
  private async baseline(symbols: string[]): Promise<void> {
    try {
      const quotes = await this.opts.readQuotes(symbols);
      symbols.forEach((symbol, i) => {
        const quote = quotes[i];
        if (quote instanceof Quote && !this.seen.has(symbol)) this.seen.set(symbol, fingerprint(quote));
      });
    } catch (err) {
      this.opts.onError?.(err);
    }
  }
}
