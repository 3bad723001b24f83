/**
 * The subscriptions and the live connections each key holds on this replica, over every door (the WebSocket door at
 * `/v0` and `/v1`, graphql-ws on `/graphql`): one count of each per key, so MDG_WS_MAX_SUBSCRIPTIONS and
 * MDG_WS_MAX_CONNECTIONS_PER_KEY bound both doors together.
 */
export class LiveAllowance {
  private readonly held = new Map<string, number>();
  private readonly connections = new Map<string, number>();

  constructor(
    readonly maxPerKey: number,
    readonly maxConnectionsPerKey: number,
  ) {}

  /** Live connections the key has open now. */
  connectionsOf(keyId: string): number {
    return this.connections.get(keyId) ?? 0;
  }

  /** Counts one more connection of the key if it fits, and answers whether it did; given back with `disconnect`. */
  connect(keyId: string): boolean {
    const open = this.connectionsOf(keyId);
    if (open >= this.maxConnectionsPerKey) return false;
    this.connections.set(keyId, open + 1);
    return true;
  }

  disconnect(keyId: string): void {
    const left = this.connectionsOf(keyId) - 1;
    if (left > 0) this.connections.set(keyId, left);
    else this.connections.delete(keyId);
  }

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
