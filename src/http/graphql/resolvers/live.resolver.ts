import { Args, ArgsType, Authorized, Field, Float, Int, ObjectType, Resolver, Root, Subscription } from "type-graphql";
import type { Context } from "../../http.context";
import { BY_SECURITY_TYPE } from "../../../domain/instrument/instrument.access";
import { isLiveResolution, LIVE_RESOLUTIONS, type LiveEvent } from "../../../domain/live/live.types";
import type { LiveTopic } from "../../../domain/live/live.iterator";
import { Quote } from "../../../domain/quote/quote.types";
import { InternalError, InvalidArgumentError } from "../../../platform/errors";

@ObjectType({ description: "A change of one listing's quote, pushed as it happens" })
export class QuoteUpdate {
  @Field(() => String, { description: "The listing's symbol, in its canonical form (crypto pairs: BTC-USD)" })
  symbol: string;

  @Field(() => Boolean, {
    description:
      "True when the change comes from the tick simulator of the generated sample: a simulated price, not a " +
      "market's (docs/live.md)",
  })
  simulated: boolean;

  @Field(() => Quote, { description: "The quote after the change, in the listing's currency" })
  quote: Quote;
}

@ObjectType({ description: "The bar of one resolution that a change moved, as it forms and once when it closes" })
export class LiveCandle {
  @Field(() => String, { description: "The listing's symbol, in its canonical form" })
  symbol: string;

  @Field(() => String, { description: 'Resolution of the bar: "1" or "5" (minutes), or "D" (the UTC day)' })
  resolution: string;

  @Field(() => Int, { description: "Start of the bar's period, Unix seconds (UTC)" })
  t: number;

  @Field(() => Float, { description: "Open, in currency" })
  o: number;

  @Field(() => Float, { description: "High so far, in currency" })
  h: number;

  @Field(() => Float, { description: "Low so far, in currency" })
  l: number;

  @Field(() => Float, { description: "Last price within the bar, in currency" })
  c: number;

  @Field(() => Float, { description: "Volume traded within the bar (what the day's volume grew by)" })
  v: number;

  @Field(() => String, { description: "ISO 4217 code of the prices (the listing's own)" })
  currency: string;

  @Field(() => Boolean, {
    description: "False while the bar forms; true once, pushed by the first change after its end",
  })
  closed: boolean;

  @Field(() => Boolean, { description: "True when the change comes from the tick simulator (docs/live.md)" })
  simulated: boolean;
}

@ArgsType()
export class QuoteUpdatedArgs {
  @Field(() => [String], {
    description:
      "Symbols of listings (or ISINs), each one subscription of the key's MDG_WS_MAX_SUBSCRIPTIONS; the key needs " +
      "the scope of each one's security type",
  })
  symbols: string[];
}

@ArgsType()
export class CandleUpdatedArgs {
  @Field(() => String, { description: "Symbol of a listing (or an ISIN)" })
  symbol: string;

  @Field(() => String, { description: 'Resolution of the bars: "1" or "5" (minutes), or "D" (the UTC day)' })
  resolution: string;
}

/** The context's live streams: present on /graphql's WebSocket only, which is where subscriptions run. */
function streams(ctx: Context) {
  if (!ctx.live) throw new InternalError("subscriptions run over /graphql's WebSocket only");
  return ctx.live;
}

function quoteTopics({ symbols }: QuoteUpdatedArgs): LiveTopic[] {
  if (symbols.length === 0) {
    throw new InvalidArgumentError("symbols: name at least one", [{ field: "symbols", issue: "required" }]);
  }
  return symbols.map((symbol) => ({ channel: "quote", symbol, resolution: null }));
}

function candleTopic({ symbol, resolution }: CandleUpdatedArgs): LiveTopic[] {
  if (!isLiveResolution(resolution)) {
    throw new InvalidArgumentError(`resolution: expected ${LIVE_RESOLUTIONS.map((r) => `"${r}"`).join(", ")}`, [
      { field: "resolution", issue: "invalid" },
    ]);
  }
  return [{ channel: "candle", symbol, resolution }];
}

/**
 * The live prices as GraphQL subscriptions, over graphql-ws on /graphql (docs/live.md). Each field's stream comes
 * from the context's live streams, which check every symbol (the scope of its security type, an unknown one refused),
 * hold the key's subscriptions and charge its units before the first change; the methods only shape each change.
 */
@Resolver()
export class LiveResolver {
  @Authorized(BY_SECURITY_TYPE)
  @Subscription(() => QuoteUpdate, {
    description:
      "Changes of the quotes of these listings, each as it happens (the current quotes are `quotes`' answer). " +
      "Over the graphql-transport-ws protocol on /graphql only",
    subscribe: ({ args, context }) => streams(context as Context).events(context as Context, quoteTopics(args)),
  })
  quoteUpdated(@Root() event: LiveEvent, @Args(() => QuoteUpdatedArgs) _args: QuoteUpdatedArgs): QuoteUpdate {
    if (event.channel !== "quote") throw new InternalError(`a ${event.channel} change on quoteUpdated`);
    return { symbol: event.symbol, simulated: event.origin === "simulated", quote: event.quote };
  }

  @Authorized(BY_SECURITY_TYPE)
  @Subscription(() => LiveCandle, {
    description:
      "The bar of one resolution of a listing, on every change as it forms, and once more when it closes; bars are " +
      "built from the changes from the moment of the subscription. Over graphql-transport-ws on /graphql only",
    subscribe: ({ args, context }) => streams(context as Context).events(context as Context, candleTopic(args)),
  })
  candleUpdated(@Root() event: LiveEvent, @Args(() => CandleUpdatedArgs) _args: CandleUpdatedArgs): LiveCandle {
    if (event.channel !== "candle") throw new InternalError(`a ${event.channel} change on candleUpdated`);
    const { bar } = event;
    return { ...bar, simulated: event.origin === "simulated" };
  }
}
