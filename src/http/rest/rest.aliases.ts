/**
 * The Bavest SDKs' request forms that differ from ours, in one table (docs/contract.md section 1's table of request
 * forms, and section 10's of action names): REST reads field values through it, the WebSocket door its actions.
 * Read from the SDKs' sources: the Python client's enums (`Resolution`, `Freq`, `Statement` in
 * bavest/finance/client/bavest_client.py) and the Dart client's `WebsocketEventAction` (lib/client/event/).
 */

/**
 * The Python SDK's enum `Resolution` by name. Its candle calls send the value (`resolution.value`); a name is what a
 * caller writes who copies the enum (`Resolution.DAILY`), so both are read.
 */
export const RESOLUTION_NAMES: Readonly<Record<string, string>> = {
  ONE: "1",
  FIVE: "5",
  SIXTY: "60",
  DAILY: "D",
  WEEKLY: "W",
  MONTHLY: "M",
};

/** The Python SDK's `Freq` by name: its financials call sends the name (`freq.name`), the Dart client the value. */
export const FREQ_NAMES: Readonly<Record<string, string>> = { ANNUAL: "annual", QUARTERLY: "quarterly" };

/** The Python SDK's `Statement` by name (`statement.name`); the Dart client sends the value (`bs`, `ic`, `cf`). */
export const STATEMENT_NAMES: Readonly<Record<string, string>> = { BALANCE: "bs", INCOME: "ic", CASHFLOW: "cf" };

/** A field's value as we read it: an enum name of `names` (any case) becomes its value; anything else is kept. */
export function aliasValue<T>(names: Readonly<Record<string, string>>, raw: T): T | string {
  if (typeof raw !== "string") return raw;
  return names[raw.trim().toUpperCase()] ?? raw;
}

/** What a WebSocket action names: an endpoint of the route table, or the door's own candle subscription. */
export type ActionTarget = { kind: "endpoint"; path: string } | { kind: "subscribe"; channel: "candle" };

/**
 * The Dart client's action names (`WebsocketEventAction`) that are not our paths, and what each is. The rest of its
 * names are paths of ours as they stand (`quote`, `stock/profile`, `stock/peers`, `stock/metric`, `stock/financials`,
 * `stock/fundamentals`, `calender/ipo`, `portfolio/price`, `portfolio/allocation`, `ping` …) or the one path this
 * service does not serve, `portfolio/benchmark` (the Dart client declares it but leaves it unimplemented), which
 * answers 404 NOT_FOUND as any unknown path.
 */
export const DART_ACTIONS: Readonly<Record<string, ActionTarget>> = {
  "realtime/candle": { kind: "subscribe", channel: "candle" },
  split: { kind: "endpoint", path: "stock/split" },
  forex: { kind: "endpoint", path: "fx/quote" },
  "stock/peers/widget": { kind: "endpoint", path: "widgets/stock/peers" },
};

/**
 * REST paths the Dart client posts that are spelled otherwise here: its `portfolioMetrics` posts to
 * `portfolio/metrics`, the Python SDK (whose shape wins) to `portfolio/metric`. The target's route file declares
 * each alias as a copy of its entry under the alias's path, so both are documented and answered alike (a WebSocket
 * action of that name too).
 */
export const DART_PATHS: Readonly<Record<string, string>> = { "portfolio/metrics": "portfolio/metric" };

/** The Dart client's action names no path of ours answers, as the contract's table lists them. */
export const DART_UNSERVED_ACTIONS: readonly string[] = ["portfolio/benchmark"];

/** The target of an action other than the door's own (`ping`, `subscribe`, `unsubscribe`): an alias, or a path. */
export function actionTarget(action: string): ActionTarget {
  return DART_ACTIONS[action] ?? { kind: "endpoint", path: action.replace(/^\/+|\/+$/g, "") };
}
