import { QuoteChanges, type ReadQuotes } from "./live.changes";
import type { LiveHub } from "./live.hub";

export interface QuotePollOptions {
  /** How often the subscribed symbols' quotes are read while any symbol is subscribed. */
  pollMs: number;
  /** The latest quotes of these symbols, in order (null or an Error where there is none): one batch per look. */
  readQuotes: ReadQuotes;
  onError?: (err: unknown) => void;
}

/**
 * Gateway mode's changes: the upstream pushes nothing, so while this replica has subscribers the quotes of the
 * subscribed symbols are read every `pollMs` in one batch (the upstream client sends a batch as the upstream's bulk,
 * in chunks), and those that differ from the last read are published, marked `upstream`. A symbol's first read is
 * its baseline: nothing is published for it. No timer runs and nothing is read while nobody subscribes.
 */
export class QuotePoll {
  private readonly changes: QuoteChanges;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly hub: LiveHub,
    private readonly opts: QuotePollOptions,
  ) {
    this.changes = new QuoteChanges(hub, "upstream", opts.readQuotes, opts.onError);
    hub.onDemand((symbol, wanted) => {
      if (!wanted) this.changes.forget(symbol);
      this.follow();
    });
    this.follow();
  }

  /** Stops polling for good (shutdown). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Whether the timer runs (while someone subscribes). */
  get polling(): boolean {
    return this.timer !== undefined;
  }

  /** One look: reads the subscribed quotes and publishes those that changed. Resolves when done. */
  poll(): Promise<void> {
    return (this.running ??= this.changes.publishChanged().finally(() => (this.running = undefined)));
  }

  /** The timer runs while the hub has subscribers, and only then. */
  private follow(): void {
    const wanted = this.hub.wanted().length > 0;
    if (wanted && !this.timer && !this.stopped) {
      this.timer = setInterval(() => void this.poll(), this.opts.pollMs);
      this.timer.unref();
      // The baseline of the new symbols at once, so the first change is pushed one interval later, not two.
      void this.poll();
    } else if (!wanted && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
