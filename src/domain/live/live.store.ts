import { QuoteChanges, type ReadQuotes } from "./live.changes";
import type { LiveHub } from "./live.hub";

export interface StoreQuoteWatchOptions {
  /** How often the store's data version is read while someone is subscribed. */
  pollMs: number;
  /** The store's data version: it moves with every commit, whoever made it (an import, a provider run, SQL). */
  dataVersion: () => number;
  /** The latest quotes of these symbols as the store holds them, in order (null or an Error where there is none). */
  readQuotes: ReadQuotes;
  onError?: (err: unknown) => void;
}

/**
 * Imports and provider runs write the store from another process (or a job of this one); each commit moves the
 * store's data version, the number the instrument cache already follows (`MarketDataSource.dataVersion`). While this
 * replica has subscribers, the version is read every `pollMs` (SQLite: `PRAGMA data_version`, microseconds; PostgreSQL:
 * the change feed's last version, no query); when it moved, the subscribed symbols' quotes are read in one batch and
 * those that differ from what was last seen are published, marked `store`. Symbols nobody subscribes to are never
 * read. With Redis, a writer also names the symbols it changed as it commits (`refresh`), so they are read at once.
 */
export class StoreQuoteWatch {
  private readonly changes: QuoteChanges;
  private version: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly hub: LiveHub,
    private readonly opts: StoreQuoteWatchOptions,
  ) {
    this.version = opts.dataVersion();
    this.changes = new QuoteChanges(hub, "store", opts.readQuotes, opts.onError);
    hub.onDemand((symbol, wanted) => (wanted ? void this.changes.baseline([symbol]) : this.changes.forget(symbol)));
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

  /**
   * A writer said these symbols changed (its notice over Redis, before this replica's next look): their quotes are
   * read at once, those subscribed here, and published where they changed.
   */
  refresh(symbols: readonly string[]): Promise<void> {
    return this.changes.publishChanged(symbols);
  }

  private async look(): Promise<void> {
    // Nobody subscribed: nothing to compare, and the version is not read (a subscriber's first quote is its baseline).
    if (this.hub.size === 0) return;
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
    await this.changes.publishChanged();
  }
}
