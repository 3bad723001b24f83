import {
  Args,
  ArgsType,
  Authorized,
  Ctx,
  Field,
  FieldResolver,
  Float,
  ID,
  Int,
  ObjectType,
  Query,
  Resolver,
  Root,
} from "type-graphql";
import { CandleRangeArgs, Candles } from "../../../domain/candle/candle.types";
import type { Context } from "../../http.context";
import { AnnualDividends, Dividend, DividendEstimate } from "../../../domain/dividend/dividend.types";
import { listingId } from "../../../domain/instrument/instrument.ids";
import { DividendRangeArgs, MoneyCurrencyArgs } from "../../../domain/stock/stock.args";
import { served } from "../../../domain/instrument/instrument.served";
import { FinancialsTtm, Stock, StockArgs } from "../../../domain/stock/stock.types";
import { StockMetric } from "../../../domain/stock/stock.metrics";
import { StockFundamentals } from "../../../domain/stock/stock.fundamentals";
import { BalanceSheet, CashFlowStatement, IncomeStatement, StatementArgs } from "../../../domain/stock/statement.types";
import {
  EARNINGS_DEFAULT_DAYS,
  EARNINGS_MAX_DAYS,
  EARNINGS_MAX_ROWS,
  IPO_DEFAULT_DAYS,
  IPO_MAX_DAYS,
  IPO_MAX_ROWS,
  PEERS_DEFAULT,
  PEERS_MAX,
} from "../../../domain/stock/stock.answers";
import type {
  StockDividendHistory as StockDividendHistoryAnswer,
  StockProfile as StockProfileAnswer,
  StockSplit as StockSplitAnswer,
  StockPeerWidgetItem as StockPeerWidgetItemAnswer,
  EarningsDate as EarningsDateAnswer,
  IpoCalendarItem as IpoCalendarItemAnswer,
} from "../../../domain/stock/stock.answers";

@ObjectType({ description: "A stock's dividends known today, in one currency or each in its own" })
export class StockDividendHistory implements StockDividendHistoryAnswer {
  @Field(() => String, { description: "Symbol of the listing asked for (by ISIN: the primary listing)" })
  symbol: string;

  @Field(() => String, {
    nullable: true,
    description: "ISO 4217 currency every amount was converted into; null when none was asked and each keeps its own",
  })
  currency: string | null;

  @Field(() => [Dividend], {
    description: "Oldest first, history and announced; each converted at its ex-date's rate when a currency was asked",
  })
  dividends: Dividend[];
}

@ObjectType({ description: "A stock split: fromFactor shares became toFactor (a 4-for-1 is 1 to 4)" })
export class StockSplit implements StockSplitAnswer {
  @Field(() => String, { description: "Symbol of the listing asked for (by ISIN: the primary listing)" })
  symbol: string;

  @Field(() => String, { description: "First day traded on the new shares, YYYY-MM-DD" })
  date: string;

  @Field(() => Int, { description: "Shares before, a whole number (1 in a 4-for-1)" })
  fromFactor: number;

  @Field(() => Int, {
    description: "Shares after, a whole number (4 in a 4-for-1; less than fromFactor in a reverse split)",
  })
  toFactor: number;
}

@ArgsType()
export class SplitRangeArgs {
  @Field(() => String, { nullable: true, description: "First day, YYYY-MM-DD; default: the first split stored" })
  from?: string | null;

  @Field(() => String, { nullable: true, description: "Last day, YYYY-MM-DD; default: today (UTC)" })
  to?: string | null;
}

@ArgsType()
export class PeersArgs {
  @Field(() => Int, {
    nullable: true,
    description: `How many peers at most, 1 to ${PEERS_MAX}; default ${PEERS_DEFAULT}`,
  })
  limit?: number | null;
}

@ArgsType()
export class PeersWidgetArgs extends PeersArgs {
  @Field(() => String, {
    nullable: true,
    description: "ISO 4217 code to answer prices in; default: each peer's listing currency",
  })
  currency?: string | null;
}

@ObjectType({ description: "A stock's earnings date: a reported quarter's, or the next one the store holds" })
export class EarningsDate implements EarningsDateAnswer {
  @Field(() => String, { description: "YYYY-MM-DD" })
  date: string;

  @Field(() => String, { description: "Symbol of the stock's primary listing" })
  symbol: string;

  @Field(() => String, { description: "MIC-style code of that listing's exchange" })
  exchange: string;

  @Field(() => String, {
    description: "`<company> Q<n> <fiscal year> earnings` for a reported quarter, `<company> earnings` ahead",
  })
  title: string;

  @Field(() => String, { nullable: true, description: "The day the quarter was reported; null for a date ahead" })
  publicationDate: string | null;
}

@ArgsType()
export class EarningsCalendarArgs {
  @Field(() => String, { nullable: true, description: "First day, YYYY-MM-DD; default: today (UTC)" })
  from?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      `Last day, YYYY-MM-DD; default: ${EARNINGS_DEFAULT_DAYS} days after from; ` +
      `at most ${EARNINGS_MAX_DAYS} days in all`,
  })
  to?: string | null;
}

@ObjectType({ description: "An initial public offering: the stock, its listing day, and the shares and price offered" })
export class IpoCalendarItem implements IpoCalendarItemAnswer {
  @Field(() => String, { description: "YYYY-MM-DD: the listing day, expected or actual" })
  date: string;

  @Field(() => String, { description: "Symbol of the stock's primary listing" })
  symbol: string;

  @Field(() => String, { description: "The company's name" })
  name: string;

  @Field(() => String, { description: "MIC-style code of the exchange the shares are offered on" })
  exchange: string;

  @Field(() => Float, { nullable: true, description: "Shares offered; null where the store holds none" })
  numberOfShares: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Offer price in currency (the expected price while expected); null where the store holds none",
  })
  price: number | null;

  @Field(() => String, { description: "ISO 4217 code of price and totalSharesValue" })
  currency: string;

  @Field(() => Float, {
    nullable: true,
    description: "The shares offered times the price, in cents; null without either",
  })
  totalSharesValue: number | null;

  @Field(() => String, { description: "The offering's status: expected, priced or withdrawn" })
  status: "expected" | "priced" | "withdrawn";
}

@ArgsType()
export class IpoCalendarArgs {
  @Field(() => String, { nullable: true, description: "First day, YYYY-MM-DD; default: today (UTC)" })
  from?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      `Last day, YYYY-MM-DD; default: ${IPO_DEFAULT_DAYS} days after from; ` + `at most ${IPO_MAX_DAYS} days in all`,
  })
  to?: string | null;
}

@ObjectType({ description: "A peer as the Bavest SDKs' peers widget shows it: who it is and its latest price" })
export class StockPeerWidgetItem implements StockPeerWidgetItemAnswer {
  @Field(() => String, { description: "Symbol of the peer's primary listing" })
  symbol: string;

  @Field(() => String, { description: "Name of the company" })
  name: string;

  @Field(() => String, { description: "The peer's industry (its sector where it has none)" })
  category: string;

  @Field(() => Float, { description: "Latest price, in the currency asked or the listing's" })
  close: number;

  @Field(() => Float, { description: "Change of the latest price to the previous close, in the same currency" })
  priceChange: number;
}

@ObjectType({
  description:
    "The company's profile as the store holds it: identity, classification, the latest price, its change and " +
    "average volume, the 52-week range and the latest dividend",
})
export class StockProfile implements StockProfileAnswer {
  @Field(() => String, { description: "Symbol of the listing asked for (by ISIN: the primary listing)" })
  symbol: string;

  @Field(() => String, { description: "Name of the company" })
  companyName: string;

  @Field(() => String, { description: "ISO 4217 currency of the listing: of price, changes and the 52-week range" })
  currency: string;

  @Field(() => String, { nullable: true, description: "ISIN; null where unknown" })
  isin: string | null;

  @Field(() => String, { nullable: true, description: "CUSIP; null where unknown" })
  cusip: string | null;

  @Field(() => String, { description: "MIC-style code of the listing's exchange" })
  exchange: string;

  @Field(() => String, { nullable: true, description: "Sector (GICS-like); null where unknown" })
  sector: string | null;

  @Field(() => String, { nullable: true, description: "Industry within the sector; null where unknown" })
  industry: string | null;

  @Field(() => String, { nullable: true, description: "ISO 3166 alpha-2 of domicile; null where unknown" })
  country: string | null;

  @Field(() => String, { nullable: true, description: "The company's website; null where unknown" })
  website: string | null;

  @Field(() => String, { nullable: true, description: "What the company does; null where unknown" })
  description: string | null;

  @Field(() => String, {
    nullable: true,
    description: "Day of the initial public offering, YYYY-MM-DD; null where unknown",
  })
  ipo: string | null;

  @Field(() => Boolean, { description: "False once the company is delisted" })
  isActivelyTrading: boolean;

  @Field(() => Boolean, { description: "Whether the security is an American depositary receipt" })
  isAdr: boolean;

  @Field(() => Float, {
    nullable: true,
    description: "Market capitalisation in the reporting currency; null where unknown",
  })
  marketCapitalization: number | null;

  @Field(() => Float, { nullable: true, description: "Latest price of the listing; null without a quote" })
  price: number | null;

  @Field(() => Float, { nullable: true, description: "Latest price less the previous close; null without a quote" })
  changes: number | null;

  @Field(() => Float, { nullable: true, description: "Average daily volume of the quote; null where unknown" })
  volAvg: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Lowest low of the daily bars of the 365 days to the latest quote; null without bars",
  })
  yearLow: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Highest high of the daily bars of the 365 days to the latest quote; null without bars",
  })
  yearHigh: number | null;

  @Field(() => Float, {
    description:
      "Per share, in its own currency, of the latest dividend gone ex on or before today; 0 for a stock that has " +
      "paid none",
  })
  lastDiv: number;
}

/**
 * `stock(symbol|isin)` needs the `stock` scope, or `search` for what a search
 * result shows of a stock (id, symbol, name, ISIN, exchange, currency, market
 * capitalisation); every other field needs its own scope: `stock` for the
 * company's figures, financials and candles, `dividend` for dividends. A
 * field refused is null with FORBIDDEN at its path, its siblings answered.
 */
@Resolver(() => Stock)
export class StockResolver {
  @Authorized("stock")
  @Query(() => [EarningsDate], {
    description:
      "Earnings dates of every stock within days [from, to], earliest first (by day, then security), at most " +
      `${EARNINGS_MAX_ROWS}: reported quarters' dates and each stock's next earnings date`,
  })
  earningsCalendar(
    @Args(() => EarningsCalendarArgs) args: EarningsCalendarArgs,
    @Ctx() ctx: Context,
  ): Promise<EarningsDate[]> {
    return ctx.answers.stock.earningsCalendar(ctx, args.from, args.to);
  }

  @Authorized("stock")
  @Query(() => [IpoCalendarItem], {
    description:
      "Initial public offerings within days [from, to], earliest first (by day, then symbol), at most " +
      `${IPO_MAX_ROWS}: priced, expected and withdrawn`,
  })
  ipoCalendar(@Args(() => IpoCalendarArgs) args: IpoCalendarArgs, @Ctx() ctx: Context): Promise<IpoCalendarItem[]> {
    return ctx.answers.stock.ipoCalendar(ctx, args.from, args.to);
  }

  @Authorized("stock", "search")
  @Query(() => Stock, { description: "A stock by symbol (any of its listings) or ISIN" })
  stock(@Args(() => StockArgs) args: StockArgs, @Ctx() ctx: Context): Promise<Stock> {
    return ctx.answers.stock.get(ctx, args);
  }

  @FieldResolver(() => ID, {
    description:
      "Stable id of this listing (exchange:symbol), the same across restarts and replicas; for client caches",
  })
  id(@Root() stock: Stock): string {
    return listingId({ exchange: served(stock.exchange, "Stock.id"), symbol: stock.symbol });
  }

  @Authorized("stock")
  @FieldResolver(() => FinancialsTtm, {
    nullable: true,
    description:
      "Trailing-twelve-month financials; with fewer than four reported quarters, those quarters and null figures",
  })
  financialsTtm(
    @Root() stock: Stock,
    @Args(() => MoneyCurrencyArgs) args: MoneyCurrencyArgs,
    @Ctx() ctx: Context,
  ): Promise<FinancialsTtm> {
    return ctx.answers.stock.financialsTtm(ctx, stock, args.currency);
  }

  @Authorized("stock")
  @FieldResolver(() => StockMetric, {
    nullable: true,
    description:
      "Metrics from the trailing twelve months, the latest quote and the daily bars (stock/metric); a figure whose " +
      "inputs the store lacks is null",
  })
  metric(
    @Root() stock: Stock,
    @Args(() => MoneyCurrencyArgs) args: MoneyCurrencyArgs,
    @Ctx() ctx: Context,
  ): Promise<StockMetric> {
    return ctx.answers.stock.metric(ctx, stock, args.currency);
  }

  @Authorized("stock")
  @FieldResolver(() => StockFundamentals, {
    nullable: true,
    description:
      "Fundamentals by fiscal year (stock/fundamentals): returns, margins, balance-sheet structure, and multiples " +
      "at each year's closing price; a figure whose inputs the store lacks is null",
  })
  fundamentals(
    @Root() stock: Stock,
    @Args(() => MoneyCurrencyArgs) args: MoneyCurrencyArgs,
    @Ctx() ctx: Context,
  ): Promise<StockFundamentals> {
    return ctx.answers.stock.fundamentals(ctx, stock, args.currency);
  }

  @Authorized("stock")
  @FieldResolver(() => [IncomeStatement], {
    description: "Income statements, newest first: each fiscal year with four reported quarters, or each quarter",
  })
  incomeStatements(
    @Root() stock: Stock,
    @Args(() => StatementArgs) args: StatementArgs,
    @Ctx() ctx: Context,
  ): Promise<IncomeStatement[]> {
    return ctx.answers.stock.statements(ctx, stock, "ic", args.freq, args.currency);
  }

  @Authorized("stock")
  @FieldResolver(() => [BalanceSheet], {
    description: "Balance sheets, newest first: at the end of each fiscal year with four reported quarters, or each",
  })
  balanceSheets(
    @Root() stock: Stock,
    @Args(() => StatementArgs) args: StatementArgs,
    @Ctx() ctx: Context,
  ): Promise<BalanceSheet[]> {
    return ctx.answers.stock.statements(ctx, stock, "bs", args.freq, args.currency);
  }

  @Authorized("stock")
  @FieldResolver(() => [CashFlowStatement], {
    description: "Cash-flow statements, newest first: each fiscal year with four reported quarters, or each quarter",
  })
  cashFlowStatements(
    @Root() stock: Stock,
    @Args(() => StatementArgs) args: StatementArgs,
    @Ctx() ctx: Context,
  ): Promise<CashFlowStatement[]> {
    return ctx.answers.stock.statements(ctx, stock, "cf", args.freq, args.currency);
  }

  @Authorized("stock")
  @FieldResolver(() => StockProfile, {
    nullable: true,
    description: "The company's profile: identity, classification, latest price, 52-week range, latest dividend",
  })
  profile(@Root() stock: Stock, @Ctx() ctx: Context): Promise<StockProfile> {
    return ctx.answers.stock.profile(ctx, stock);
  }

  // The stock scope's view of the dividends (stock/dividend, as Bavest serves it); `dividends` is the dividend scope's.
  @Authorized("stock")
  @FieldResolver(() => StockDividendHistory, {
    nullable: true,
    description:
      "Every dividend known today, oldest first, each in its own currency or converted into `currency` at its " +
      "ex-date's rate (scope stock)",
  })
  dividendHistory(
    @Root() stock: Stock,
    @Args(() => MoneyCurrencyArgs) args: MoneyCurrencyArgs,
    @Ctx() ctx: Context,
  ): Promise<StockDividendHistory> {
    return ctx.answers.stock.dividendHistory(ctx, stock, args.currency);
  }

  @Authorized("stock")
  @FieldResolver(() => [StockSplit], {
    nullable: true,
    description: "Splits of the stock, oldest first; an empty list for a stock that has none in the range",
  })
  splits(
    @Root() stock: Stock,
    @Args(() => SplitRangeArgs) args: SplitRangeArgs,
    @Ctx() ctx: Context,
  ): Promise<StockSplit[]> {
    return ctx.answers.stock.splits(ctx, stock, args.from, args.to);
  }

  @Authorized("stock")
  @FieldResolver(() => [Stock], {
    nullable: true,
    description:
      "Other stocks of the same industry, then of the same sector, each group nearest in market capitalisation " +
      "(in US dollars) first; by their primary listings",
  })
  peers(@Root() stock: Stock, @Args(() => PeersArgs) args: PeersArgs, @Ctx() ctx: Context): Promise<Stock[]> {
    return ctx.answers.stock.peers(ctx, stock, args.limit);
  }

  @Authorized("stock")
  @FieldResolver(() => [StockPeerWidgetItem], {
    nullable: true,
    description:
      "The peers with their latest prices, as the Bavest SDKs' peers widget shows them; peers without a price left out",
  })
  peersWidget(
    @Root() stock: Stock,
    @Args(() => PeersWidgetArgs) args: PeersWidgetArgs,
    @Ctx() ctx: Context,
  ): Promise<StockPeerWidgetItem[]> {
    return ctx.answers.stock.peersWidget(ctx, stock, args.currency, args.limit);
  }

  @Authorized("stock")
  @FieldResolver(() => Candles, { nullable: true, description: "OHLCV candles of this listing" })
  candles(
    @Root() stock: Stock,
    @Args(() => CandleRangeArgs) args: CandleRangeArgs,
    @Ctx() ctx: Context,
  ): Promise<Candles> {
    return ctx.answers.stock.candles(ctx, stock, args);
  }

  @Authorized("dividend")
  @FieldResolver(() => [Dividend], {
    nullable: true,
    description: "Every dividend known today, oldest first (history and announced)",
  })
  dividends(
    @Root() stock: Stock,
    @Args(() => DividendRangeArgs) args: DividendRangeArgs,
    @Ctx() ctx: Context,
  ): Promise<Dividend[]> {
    return ctx.answers.stock.dividends(ctx, stock, args.from, args.to);
  }

  @Authorized("dividend")
  @FieldResolver(() => AnnualDividends, {
    nullable: true,
    description: "Dividends per calendar year with the forward dividend and yield (scope dividend)",
  })
  annualDividends(
    @Root() stock: Stock,
    @Args(() => MoneyCurrencyArgs) args: MoneyCurrencyArgs,
    @Ctx() ctx: Context,
  ): Promise<AnnualDividends> {
    return ctx.answers.stock.annualDividends(ctx, stock, args.currency);
  }

  @Authorized("dividend")
  @FieldResolver(() => DividendEstimate, {
    nullable: true,
    description: "Announced and estimated dividends of the next twelve months (scope dividend)",
  })
  dividendEstimate(@Root() stock: Stock, @Ctx() ctx: Context): Promise<DividendEstimate> {
    return ctx.answers.stock.dividendEstimate(ctx, stock);
  }

  // The stock's identity as its answer carries it: every field from a row store, what an upstream serves of it
  // otherwise (instrument.served.ts). REST reads none of these. Those a search result also shows need no more than
  // the root field; the company's own figures need `stock`.

  @FieldResolver(() => String, { description: "Symbol of the listing asked for (by ISIN: the primary listing)" })
  symbol(@Root() stock: Stock): string {
    return served(stock.symbol, "Stock.symbol");
  }

  @FieldResolver(() => String, { description: "Name of the company" })
  name(@Root() stock: Stock): string {
    return served(stock.name, "Stock.name");
  }

  @FieldResolver(() => String, { nullable: true, description: "ISIN of the stock; null where unknown" })
  isin(@Root() stock: Stock): string | null {
    return served(stock.isin, "Stock.isin");
  }

  @FieldResolver(() => String, { description: "MIC-style code of the listing's exchange" })
  exchange(@Root() stock: Stock): string {
    return served(stock.exchange, "Stock.exchange");
  }

  @FieldResolver(() => String, { description: "ISO 4217 currency of the listing's prices" })
  currency(@Root() stock: Stock): string {
    return served(stock.currency, "Stock.currency");
  }

  // Nullable so that a key without `stock` loses this field alone, not the whole stock.
  @Authorized("stock")
  @FieldResolver(() => String, {
    nullable: true,
    description: "ISO 4217 currency the company reports in (null only where the key lacks the stock scope)",
  })
  reportingCurrency(@Root() stock: Stock): string {
    return served(stock.reportingCurrency, "Stock.reportingCurrency");
  }

  @Authorized("stock")
  @FieldResolver(() => String, { nullable: true, description: "ISO 3166 alpha-2 of domicile" })
  country(@Root() stock: Stock): string | null {
    return served(stock.country, "Stock.country");
  }

  @Authorized("stock")
  @FieldResolver(() => String, {
    nullable: true,
    description: "Sector (GICS-like, e.g. Information Technology); null where unknown",
  })
  sector(@Root() stock: Stock): string | null {
    return served(stock.sector, "Stock.sector");
  }

  @Authorized("stock")
  @FieldResolver(() => String, {
    nullable: true,
    description: "Industry within the sector, e.g. Semiconductors; null where unknown",
  })
  industry(@Root() stock: Stock): string | null {
    return served(stock.industry, "Stock.industry");
  }

  @FieldResolver(() => Float, {
    nullable: true,
    description: "Market capitalisation in the reporting currency; null where unknown",
  })
  marketCapitalization(@Root() stock: Stock): number | null {
    return served(stock.marketCapitalization, "Stock.marketCapitalization");
  }

  @Authorized("stock")
  @FieldResolver(() => Float, {
    nullable: true,
    description: "Shares outstanding as of the latest reported quarter; null where unknown",
  })
  sharesOutstanding(@Root() stock: Stock): number | null {
    return served(stock.sharesOutstanding, "Stock.sharesOutstanding");
  }

  @Authorized("stock")
  @FieldResolver(() => String, { nullable: true, description: "Next earnings date, YYYY-MM-DD" })
  nextEarningsDate(@Root() stock: Stock): string | null {
    return served(stock.nextEarningsDate, "Stock.nextEarningsDate");
  }
}
