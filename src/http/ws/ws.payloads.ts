import type { LiveEvent } from "../../domain/live/live.types";
import { RESOLUTION_SECONDS } from "../../domain/live/live.types";
import type { AppDeps } from "../http.context";
import { ROUTES } from "../rest/rest.routes";
import type { ApiVersion, RouteEntry } from "../rest/rest.route";

/**
 * The text of each push, made once per change and version however many sockets it goes to: a quote in the shape
 * REST's `quote` answers (its declaration's own `shape`), a bar in the shape of `candle` with one bar. A change of the
 * tick simulator says `"simulated": true`.
 */
export function livePayloads(deps: Pick<AppDeps, "answers">) {
  const quoteRoute = ROUTES.find((r) => r.path === "quote") as RouteEntry;
  const made = new WeakMap<LiveEvent, Partial<Record<ApiVersion, string>>>();

  function text(event: LiveEvent, version: ApiVersion): string {
    const simulated = event.origin === "simulated" ? { simulated: true } : {};
    if (event.channel === "quote") {
      const q = event.quote;
      const data = quoteRoute.shape({ quote: { ...q, metrics: deps.answers.quote.metrics(q) } }, version);
      return JSON.stringify({ channel: "quote", symbol: event.symbol, data, ...simulated });
    }
    const { bar } = event;
    const data = {
      symbol: bar.symbol,
      s: "ok",
      t: [bar.t],
      o: [bar.o],
      h: [bar.h],
      l: [bar.l],
      c: [bar.c],
      v: [bar.v],
      from: bar.t,
      to: bar.t + RESOLUTION_SECONDS[bar.resolution] - 1,
      resolution: bar.resolution,
      key: `${bar.symbol}:${bar.resolution}:${bar.currency}`,
      currency: bar.currency,
    };
    const head = { channel: "candle", symbol: event.symbol, resolution: bar.resolution, closed: bar.closed };
    return JSON.stringify({ ...head, data, ...simulated });
  }

  return {
    of(event: LiveEvent, version: ApiVersion): string {
      let texts = made.get(event);
      if (!texts) made.set(event, (texts = {}));
      return (texts[version] ??= text(event, version));
    },
  };
}
