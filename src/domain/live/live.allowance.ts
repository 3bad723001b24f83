/**
 * The subscriptions each key holds on this replica, over every door (the WebSocket door's `subscribe`, GraphQL's
 * `quoteUpdated` and `candleUpdated`): one count per key, so MDG_WS_MAX_SUBSCRIPTIONS bounds them together.
 */
export class LiveAllowance {
  private readonly held = new Map<string, number>();

  constructor(readonly maxPerKey: number) {}

  /** Subscriptions the key holds now. */
  heldBy(keyId: string): number {
    return this.held.get(keyId) ?? 0;
  }

  /**
   * Takes `n` subscriptions for the key if they fit (all or none), and answers whether they did. Taken before any
   * check that waits, so concurrent subscribes cannot pass the limit together; given back with `release`.
   */
  take(keyId: string, n: number): boolean {
    const now = this.heldBy(keyId);
    if (now + n > this.maxPerKey) return false;
    this.held.set(keyId, now + n);
    return true;
  }

  release(keyId: string, n: number): void {
    const left = this.heldBy(keyId) - n;
    if (left > 0) this.held.set(keyId, left);
    else this.held.delete(keyId);
  }
}
