import { formatDay, makeDay, onOrAfterWeekday, onOrBeforeWeekday } from "../../sources/sample/sample.calendar";
import type { SampleContext } from "./sample.context";
import { assertReferenceCodes, countryName, currencyDigits, exchange } from "../../sources/sample/sample.markets";
import type { Listing, Stock } from "./sample.model";
import { interpolate, roundPrice } from "../../sources/sample/sample.numbers";
import type { Random } from "../../sources/sample/sample.random";
import { SECTOR_WEIGHTS, SECTORS, sectorByName } from "./sample.sectors";

/**
 * The stock universe: companies, their market caps, primary and secondary
 * listings and identifiers.
 */

/** Home countries of companies that list in the US through ADRs. */
export const ADR_COUNTRIES = [
  "CN",
  "IN",
  "BR",
  "KR",
  "TW",
  "IL",
  "MX",
  "AR",
  "ZA",
  "IE",
  "ES",
  "IT",
  "SE",
  "DK",
  "NO",
  "FI",
  "SG",
];
assertReferenceCodes(ADR_COUNTRIES, []);

type Domicile = "US" | "ADR" | "JP" | "HK" | "CN" | "GB" | "DE" | "FR" | "NL" | "CH" | "CA" | "AU";
const DOMICILES: readonly Domicile[] = ["US", "ADR", "JP", "HK", "CN", "GB", "DE", "FR", "NL", "CH", "CA", "AU"];
// Large caps are more often American than the long tail is.
const LARGE_CAP_MIX = [55, 3, 7, 3, 4, 5, 5, 5, 2, 4, 4, 3];
const SMALL_CAP_MIX = [42, 3, 8, 4, 3, 8, 5, 5, 2, 3, 9, 8];

// Typical share price relative to a US share of the same company size
// (London and Sydney trade low-priced shares, Swiss shares are expensive).
const PRICE_LEVEL: Readonly<Record<string, number>> = {
  XNAS: 1,
  XNYS: 1,
  XTKS: 0.8,
  XHKG: 0.15,
  XLON: 0.35,
  XASX: 0.3,
  XTSE: 0.7,
  XETR: 1,
  XFRA: 0.8,
  XPAR: 1,
  XAMS: 1,
  XSWX: 2,
};

/** log10(rank in a full-size universe) -> log10(market cap in USD). */
const CAP_KNOTS: readonly (readonly [number, number])[] = [
  [0, 12.55],
  [1, 12.0],
  [2, 11.15],
  [3, 10.25],
  [4, 8.9],
  [4.48, 8.08],
  [4.78, 7.4],
  [4.96, 6.3],
];
const FULL_STOCK_COUNT = 91_000;

function primaryExchange(d: Domicile, r: Random): string {
  switch (d) {
    case "US":
    case "ADR":
      return r.chance(0.55) ? "XNAS" : "XNYS";
    case "JP":
      return "XTKS";
    case "HK":
    case "CN":
      return "XHKG";
    case "GB":
      return "XLON";
    case "DE":
      return r.chance(0.75) ? "XETR" : "XFRA";
    case "FR":
      return "XPAR";
    case "NL":
      return "XAMS";
    case "CH":
      return "XSWX";
    case "CA":
      return "XTSE";
    case "AU":
      return "XASX";
  }
}

/** "United States of America" reads "the United States of America" in a sentence. */
function withArticle(country: string): string {
  return /^(United |Netherlands|Czech|Philippines|Bahamas)|(Islands|Republic|Emirates)$/.test(country)
    ? `the ${country}`
    : country;
}

function slug(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, "and")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** A stock's numbers, in the order of StockColumns.set. */
const enum Col {
  MarketCap,
  Shares,
  Price,
  ValueUsd,
  Volatility,
  Beta,
  Drift,
  Volume,
  Value,
  Quality,
  Momentum,
  Esg,
  Width,
}

/**
 * The stocks' numbers, a Float64Array per number. V8 keeps a fractional number held in an object's field in a box of
 * its own (16 bytes, plus the 8 of the field): the 12 numbers of ~91,000 stocks took 26 MB of heap as fields and take
 * 8.7 MB here, for the whole build. One array per number, not one for all: glibc raises its mmap and trim thresholds to
 * the size of the largest block it unmaps, and past ~8 MB it then keeps ~30 MiB of freed memory in the build threads'
 * arenas, resident until the process ends (BENCHMARKS.md, "Sample store").
 */
class StockColumns {
  private readonly columns: Float64Array[] = [];

  constructor(count: number) {
    for (let c = 0; c < Col.Width; c++) this.columns.push(new Float64Array(count));
  }

  get(row: number, col: Col): number {
    return (this.columns[col] as Float64Array)[row] as number;
  }

  set(row: number, values: readonly number[]): void {
    if (values.length !== Col.Width) throw new Error(`a stock has ${Col.Width} numbers, not ${values.length}`);
    for (let c = 0; c < Col.Width; c++) (this.columns[c] as Float64Array)[row] = values[c] as number;
  }
}

/** What a stock holds besides its numbers and what is set later (listings, rank, IPO and earnings dates). */
type StockFields = Pick<
  StockRecord,
  "id" | "name" | "isin" | "cusip" | "country" | "sector" | "industry" | "currency" | "isAdr" | "shortName" | "order"
>;

/** A generated stock: its numbers are read from its row of the universe's StockColumns (they never change). */
class StockRecord implements Stock {
  readonly type = "stock";
  id: number;
  name: string;
  isin: string | null;
  cusip: string | null;
  country: string;
  sector: string;
  industry: string;
  currency: string;
  isAdr: boolean;
  shortName: string;
  order: number;
  listings: Listing[] = [];
  rank: number | null = null;
  ipoDay = 0;
  ipoDate: string | null = null;
  nextEarningsDate: string | null = null;
  recentIpo = false;
  upcomingIpo = false;

  constructor(
    private readonly columns: StockColumns,
    private readonly row: number,
    f: StockFields,
  ) {
    this.id = f.id;
    this.name = f.name;
    this.isin = f.isin;
    this.cusip = f.cusip;
    this.country = f.country;
    this.sector = f.sector;
    this.industry = f.industry;
    this.currency = f.currency;
    this.isAdr = f.isAdr;
    this.shortName = f.shortName;
    this.order = f.order;
  }

  /** Written as stockDescription(stock) when the row is: ~90,000 texts would sit in memory for the whole build. */
  get description(): null {
    return null;
  }

  /** Written as stockWebsite(stock) when the row is, as the description. */
  get website(): null {
    return null;
  }

  get marketCap(): number {
    return this.columns.get(this.row, Col.MarketCap);
  }
  get sharesOutstanding(): number {
    return this.columns.get(this.row, Col.Shares);
  }
  get price(): number {
    return this.columns.get(this.row, Col.Price);
  }
  get valueUsd(): number {
    return this.columns.get(this.row, Col.ValueUsd);
  }
  get volatility(): number {
    return this.columns.get(this.row, Col.Volatility);
  }
  get beta(): number {
    return this.columns.get(this.row, Col.Beta);
  }
  get drift(): number {
    return this.columns.get(this.row, Col.Drift);
  }
  get volume(): number {
    return this.columns.get(this.row, Col.Volume);
  }
  get value(): number {
    return this.columns.get(this.row, Col.Value);
  }
  get quality(): number {
    return this.columns.get(this.row, Col.Quality);
  }
  get momentum(): number {
    return this.columns.get(this.row, Col.Momentum);
  }
  get esg(): number {
    return this.columns.get(this.row, Col.Esg);
  }
}

export function generateStocks(ctx: SampleContext, firstId: number): Stock[] {
  const r = ctx.rng("stocks");
  const n = ctx.counts.stocks;
  const rankStretch = FULL_STOCK_COUNT / n;

  const caps: number[] = [];
  for (let i = 0; i < n; i++) {
    const fullRank = (i + 1) * rankStretch;
    caps.push(10 ** interpolate(CAP_KNOTS, Math.log10(fullRank)) * Math.exp(0.08 * r.normal()));
  }
  caps.sort((a, b) => b - a);

  // Ids are a permutation so that id order says nothing about size.
  const ids = r.shuffle(Array.from({ length: n }, (_, i) => firstId + i));

  const columns = new StockColumns(n);
  const stocks: Stock[] = [];
  for (let i = 0; i < n; i++) {
    const sr = r.fork(i);
    const capUsd = caps[i] as number;
    const large = (i + 1) * rankStretch <= 1000;
    const domicile = sr.weighted(DOMICILES, large ? LARGE_CAP_MIX : SMALL_CAP_MIX);
    const country = domicile === "ADR" ? sr.pick(ADR_COUNTRIES) : domicile;
    const exCode = primaryExchange(domicile, sr);
    const currency = exchange(exCode).currency;
    const sector = SECTORS[sr.weightedIndex(SECTOR_WEIGHTS)] ?? SECTORS[0]!;
    const industry = sr.pick(sector.industries);
    const company = ctx.namer.company(country, sector.name, industry);

    const perUsd = ctx.fx.perUsd(currency, ctx.lastTradingDay);
    const usdPrice = Math.min(2500, Math.max(0.3, sr.logNormal(Math.log(25), 0.8) * (capUsd / 1e9) ** 0.15));
    const base = currencyDigits(currency) === 0 ? 0 : 2;
    const price = roundPrice(usdPrice * (PRICE_LEVEL[exCode] ?? 1) * perUsd, base);
    const shares = Math.max(10_000, Math.round((capUsd * perUsd) / price));
    const marketCap = shares * price;

    const log10Cap = Math.log10(capUsd);
    // Idiosyncratic part only; with beta times a 16 % market this gives large
    // caps ~20-25 % total volatility and micro caps well above 40 %.
    const volatility = Math.min(0.6, Math.max(0.1, 0.12 + 0.05 * (12.5 - log10Cap))) * sr.logNormal(0, 0.15);

    const isUs = country === "US";
    const ident =
      country === "US" || domicile === "ADR" || country === "CA"
        ? ctx.ids.cusipIsin(country === "CA" ? "CA" : "US", "equity")
        : { cusip: null, isin: ctx.ids.isin(country) };

    // Drawn in this order (the stream's order is part of the data).
    const beta = Math.min(1.8, Math.max(0.3, 1 + 0.25 * sr.normal()));
    const drift = 0.07 + 0.08 * sr.normal();
    const volume = Math.max(100, Math.round(shares * Math.min(0.05, sr.logNormal(Math.log(0.006), 0.5))));
    const value = sr.next();
    const quality = sr.next();
    const momentum = sr.next();
    const esg = sr.next();
    const stock = new StockRecord(columns, i, {
      id: ids[i] as number,
      name: company.name,
      isin: ident.isin,
      // Canadian CUSIPs exist too, but the column is documented for US securities.
      cusip: isUs || domicile === "ADR" ? ident.cusip : null,
      country,
      sector: sector.name,
      industry: industry.name,
      currency,
      isAdr: domicile === "ADR",
      shortName: company.shortName,
      order: i,
    });
    columns.set(i, [
      marketCap,
      shares,
      price,
      marketCap / perUsd,
      volatility,
      beta,
      drift,
      volume,
      value,
      quality,
      momentum,
      esg,
    ]);
    addStockListings(ctx, stock, company.core, exCode, sr, (i + 1) * rankStretch);
    stocks.push(stock);
  }
  // Whole shares and rounded prices nudge caps a little; `order` must follow
  // the final values so "the N largest" agrees with the rank column.
  stocks.sort((a, b) => b.valueUsd - a.valueUsd || a.id - b.id);
  stocks.forEach((s, i) => {
    s.order = i;
  });
  assignIpoDates(ctx, stocks);
  return stocks;
}

/** A stock's website: a pure function of its short name. */
export function stockWebsite(stock: Stock): string {
  return `https://www.${slug(stock.shortName)}.example`;
}

/** A stock's description: a pure function of its name, industry, country and primary listing. */
export function stockDescription(stock: Stock): string {
  const industry = sectorByName(stock.sector ?? "").industries.find((x) => x.name === stock.industry);
  const primary = stock.listings[0];
  if (!industry || !primary) throw new Error(`stock ${stock.id}: no industry or no listing to describe`);
  const adr = stock.isAdr ? " as American depositary receipts" : "";
  return (
    `${stock.name} ${industry.activity}. The company is based in ${withArticle(countryName(stock.country ?? ""))} ` +
    `and its shares trade on ${exchange(primary.exchange).name}${adr}.`
  );
}

function listing(stock: Stock, symbol: string, exCode: string, isPrimary: boolean): Listing {
  return {
    id: 0,
    securityId: stock.id,
    symbol,
    exchange: exCode,
    currency: exchange(exCode).currency,
    isPrimary,
    quoteCurrency: null,
  };
}

function primarySymbol(ctx: SampleContext, core: string, exCode: string, r: Random, fullRank: number): string {
  const s = ctx.symbols;
  const sfx = exchange(exCode).suffix;
  switch (exCode) {
    case "XNAS":
      return s.usTicker(core, 4);
    case "XNYS":
      // Single- and two-letter NYSE tickers are a mark of old large companies.
      return s.usTicker(core, fullRank <= 300 && r.chance(0.15) ? r.intBetween(1, 2) : 3);
    case "XTKS":
      return s.numericSymbol(sfx, 1300, 9999, 4);
    case "XHKG":
      return s.numericSymbol(sfx, 1, 9999, 4);
    case "XLON":
      return s.letterSymbol(core, sfx, 3, 4);
    case "XETR":
      return s.letterSymbol(core, sfx, 3, 4);
    case "XFRA":
      return s.letterSymbol(core, sfx, 3, 4);
    case "XPAR":
      return s.letterSymbol(core, sfx, 2, 4);
    case "XAMS":
      return s.letterSymbol(core, sfx, 3, 4);
    case "XSWX":
      return s.letterSymbol(core, sfx, 3, 4);
    case "XTSE":
      return s.letterSymbol(core, sfx, 2, 4);
    case "XASX":
      return s.letterSymbol(core, sfx, 3, 3);
    default:
      throw new Error(`No stock symbols on ${exCode}`);
  }
}

/**
 * Primary listing plus secondary listings: big companies are quoted in
 * Frankfurt (and often Xetra, London or the US) in the local currency, each
 * with its own symbol.
 */
function addStockListings(
  ctx: SampleContext,
  stock: Stock,
  core: string,
  exCode: string,
  r: Random,
  fullRank: number,
): void {
  const primary = primarySymbol(ctx, core, exCode, r, fullRank);
  stock.listings.push(listing(stock, primary, exCode, true));
  const p = fullRank <= 5_000 ? 0.95 : fullRank <= 30_000 ? 0.5 : 0.15;
  if (!r.chance(p)) return;
  const s = ctx.symbols;
  const base = primary.replace(/\.[A-Z]+$/, "");
  const add = (symbol: string, ex: string) => stock.listings.push(listing(stock, symbol, ex, false));
  const claimOr = (symbol: string, fallback: () => string) => (s.claim(symbol) ? symbol : fallback());

  if (exCode === "XNAS" || exCode === "XNYS") {
    add(s.frankfurtSymbol(core), "XFRA");
    if (fullRank <= 3_000)
      add(
        claimOr(`${base}.DE`, () => s.letterSymbol(core, ".DE", 3, 4)),
        "XETR",
      );
    if (fullRank <= 1_000 && r.chance(0.3)) {
      add(
        claimOr(`0${base.slice(0, 3).padEnd(3, "X")}.L`, () => s.letterSymbol("0" + core, ".L", 4, 4)),
        "XLON",
      );
    }
    if (fullRank <= 1_000 && r.chance(0.1))
      add(
        claimOr(`${base}.SW`, () => s.letterSymbol(core, ".SW", 3, 4)),
        "XSWX",
      );
  } else if (exCode === "XETR") {
    add(
      claimOr(`${base}.F`, () => s.frankfurtSymbol(core)),
      "XFRA",
    );
  } else if (exCode === "XFRA") {
    add(
      claimOr(`${base}.DE`, () => s.letterSymbol(core, ".DE", 3, 4)),
      "XETR",
    );
  } else {
    add(s.frankfurtSymbol(core), "XFRA");
    if (exCode === "XTSE" && fullRank <= 5_000 && r.chance(0.3)) add(s.usTicker(core, 3), "XNYS");
    if ((exCode === "XPAR" || exCode === "XAMS" || exCode === "XSWX") && fullRank <= 3_000 && r.chance(0.3)) {
      add(
        claimOr(`${base}.DE`, () => s.letterSymbol(core, ".DE", 3, 4)),
        "XETR",
      );
    }
  }
}

/**
 * Established companies listed before the history window (their daily
 * history and financials are complete); a few recent IPOs among the larger
 * companies without daily history so "fewer than four quarters" occurs.
 */
function assignIpoDates(ctx: SampleContext, stocks: Stock[]): void {
  const r = ctx.rng("ipo");
  const { stocksWithHistory, stocksWithFinancials, recentIpos } = ctx.counts;
  const candidates = stocks.slice(stocksWithHistory, Math.min(stocksWithFinancials, stocks.length));
  for (const s of r.sample(candidates, recentIpos)) s.recentIpo = true;
  const early = makeDay(1950, 1, 1);
  const late = makeDay(1975, 1, 1);
  for (const s of stocks) {
    let day: number;
    if (s.recentIpo) day = onOrBeforeWeekday(ctx.anchorDay - r.intBetween(200, 290));
    else if (s.order < stocksWithFinancials) day = onOrAfterWeekday(r.intBetween(early, ctx.historyStart - 400));
    else day = onOrAfterWeekday(r.intBetween(late, ctx.anchorDay - 400));
    s.ipoDay = day;
    s.ipoDate = formatDay(day);
  }
  // A stream of its own, so every draw above stays as it was: a few smaller companies list within four weeks.
  const u = ctx.rng("ipo-upcoming");
  for (const s of u.sample(stocks.slice(Math.min(stocksWithFinancials, stocks.length)), ctx.counts.upcomingIpos)) {
    s.upcomingIpo = true;
    s.ipoDay = onOrAfterWeekday(ctx.anchorDay + u.intBetween(1, 26));
    s.ipoDate = formatDay(s.ipoDay);
  }
}
