import { Quote } from "../quote/quote.types";
import { quoteFingerprint as fingerprint, type LiveHub } from "./live.hub";
import type { LiveOrigin } from "./live.types";

/** The latest quotes of these symbols, in order (null or an Error where there is none): one batch per read. */
export type ReadQuotes = (symbols: readonly string[]) => Promise<readonly (Quote | Error | null)[]>;

/**
 * The subscribed symbols' quotes as last read, and the changes between two reads published to the hub: what a
 * feed that can only be asked (the store, the upstream) needs to push. A symbol's first read is its baseline, and
 * nothing is published for it; a failed read is reported and publishes nothing.
 */
export class QuoteChanges {
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly hub: LiveHub,
    private readonly origin: LiveOrigin,
    private readonly readQuotes: ReadQuotes,
    private readonly onError?: (err: unknown) => void,
  ) {}

  /** Drops a symbol nobody subscribes to any more: its next subscriber starts from a new baseline. */
  forget(symbol: string): void {
    this.seen.delete(symbol);
  }

  /**
   * Reads every subscribed symbol's quote (or those of `only` that are subscribed) in one batch and publishes those
   * that differ from the last read.
   */
  async publishChanged(only?: readonly string[]): Promise<void> {
    const symbols = only ? only.filter((s) => this.hub.isWanted(s)) : this.hub.wanted();
    if (symbols.length === 0) return;
    const quotes = await this.read(symbols);
    if (!quotes) return;
    const wanted = new Set(this.hub.wanted());
    symbols.forEach((symbol, i) => {
      const quote = quotes[i];
      // Unsubscribed while the batch was out: no baseline kept for it.
      if (!(quote instanceof Quote) || !wanted.has(symbol)) return;
      const now = fingerprint(quote);
      const before = this.seen.get(symbol);
      this.seen.set(symbol, now);
      if (before !== undefined && before !== now) this.hub.publish({ symbol, quote, origin: this.origin });
      else this.hub.seen(symbol, quote);
    });
  }

  /** Reads the baseline of symbols not seen yet, publishing nothing. */
  async baseline(symbols: readonly string[]): Promise<void> {
    const quotes = await this.read(symbols);
    symbols.forEach((symbol, i) => {
      const quote = quotes?.[i];
      if (!(quote instanceof Quote) || this.seen.has(symbol)) return;
      this.seen.set(symbol, fingerprint(quote));
      this.hub.seen(symbol, quote);
    });
  }

  private async read(symbols: readonly string[]): Promise<readonly (Quote | Error | null)[] | undefined> {
    try {
      return await this.readQuotes(symbols);
    } catch (err) {
      this.onError?.(err);
      return undefined;
    }
  }
}
