import type {
  DailyBarImportRow,
  ExchangeImportRow,
  FxImportRow,
  ImportListing,
  ImportSink,
  IntradayBarImportRow,
  ImportSplit,
  QuoteImportRow,
  SecurityImportRow,
  SplitImportRow,
} from "../../domain/ports/source.import";
import type { SecurityType } from "../../domain/ports/source.types";
import { isIsoCurrency, unixOfDay } from "../../domain/fx/fx.service";
import {
  bar,
  cik,
  country,
  currency,
  currencyUnit,
  cusip,
  day,
  dayUnix,
  finite,
  instant,
  isin,
  nonNegative,
  optionalNonNegative,
  plainDay,
  plainDecimal,
  required,
  RowError,
  securityType,
  text,
  wkn,
} from "./import.validate";
import {
  type FilePlan,
  hasAll,
  ImportSetupError,
  listingLookup,
  missing,
  needColumns,
  noConflicts,
} from "./import.plan";
import { ghostfolioPlan } from "./import.ghostfolio";
import type { InputFile } from "./import.readers";
import { secFinancialsPlan } from "./import.sec";
import {
  dividendsPlan,
  etfProfilesPlan,
  exposuresPlan,
  financialsPlan,
  fundProfilesPlan,
  holdingsPlan,
  iposPlan,
} from "./import.reference";

export { ImportSetupError } from "./import.plan";
export type { FilePlan } from "./import.plan";

export const KINDS = [
  "exchanges",
  "securities",
  "daily-bars",
  "intraday-bars",
  "splits",
  "fx",
  "quotes",
  "etf-profiles",
  "fund-profiles",
  "holdings",
  "exposures",
  "financials",
  "dividends",
  "ipos",
] as const;
export type ImportKind = (typeof KINDS)[number];

/** The formats `--format` names; without it a file's format is recognised by its columns. */
export const FORMATS = ["native", "yahoo", "stooq", "ecb", "ghostfolio", "sec"] as const;
export type ImportFormat = (typeof FORMATS)[number];

/** The kinds each format can be imported as (`native`, the store's own columns: every kind). */
export const FORMAT_KINDS: Readonly<Record<ImportFormat, readonly ImportKind[]>> = {
  native: KINDS,
  yahoo: ["daily-bars"],
  stooq: ["daily-bars"],
  ecb: ["fx"],
  ghostfolio: ["daily-bars", "securities"],
  sec: ["financials"],
};

/** What the command line says beyond the kind and files (the price-download options). */
export interface KindOptions {
  /** The format `--format` names; undefined: recognised by the file's columns. */
  format?: ImportFormat;
  symbol?: string;
  exchange?: string;
  currency?: string;
  name?: string;
  type?: string;
  prices?: "raw" | "adjusted";
  dryRun: boolean;
}

export const EXCHANGE_COLUMNS = ["code", "name", "currency", "timezone"] as const;
export const SECURITY_COLUMNS = [
  "symbol",
  "exchange",
  "currency",
  "type",
  "name",
  "isin",
  "cusip",
  "wkn",
  "cik",
  "country",
  "sector",
  "industry",
] as const;
export const DAILY_BAR_COLUMNS = ["symbol", "day", "o", "h", "l", "c", "v"] as const;
export const FX_COLUMNS = ["currency", "day", "per_usd"] as const;
export const SPLIT_COLUMNS = ["symbol", "day", "numerator", "denominator"] as const;
export const QUOTE_COLUMNS = ["symbol", "t", "c", "o", "h", "l", "pc", "v"] as const;
export const INTRADAY_BAR_COLUMNS = ["symbol", "t", "o", "h", "l", "c", "v"] as const;
/** The store keeps 5-minute bars: an intraday bar starts on a multiple of this many seconds. */
export const INTRADAY_BAR_SECONDS = 300;
export const YAHOO_COLUMNS = ["Date", "Open", "High", "Low", "Close", "Adj Close", "Volume"] as const;
export const STOOQ_COLUMNS = ["Date", "Open", "High", "Low", "Close", "Volume"] as const;

/**
 * Sets the plan for one file of `kind`, from its columns (or the document the reader recognised: an SEC
 * company-facts file); throws ImportSetupError when it cannot be read.
 */
export async function planFile(
  kind: ImportKind,
  input: Pick<InputFile, "format" | "columns">,
  opts: KindOptions,
  sink: ImportSink,
): Promise<FilePlan<unknown>> {
  const { columns } = input;
  if (input.format === "sec-companyfacts") {
    if (kind !== "financials") {
      throw new ImportSetupError(`an SEC company-facts document is imported as financials, not ${kind}`);
    }
    return (await secFinancialsPlan(sink, opts)) as FilePlan<unknown>;
  }
  if (opts.format === "ghostfolio" || (opts.format === undefined && columns.includes("assetProfiles"))) {
    if (kind !== "daily-bars" && kind !== "securities") {
      throw new ImportSetupError(`a Ghostfolio export is imported as daily-bars or securities, not ${kind}`);
    }
    return (await ghostfolioPlan(kind, columns, opts, sink)) as FilePlan<unknown>;
  }
  switch (kind) {
    case "exchanges":
      return exchangesPlan(columns, sink) as FilePlan<unknown>;
    case "securities":
      return (await securitiesPlan(columns, sink)) as FilePlan<unknown>;
    case "daily-bars":
      return (await dailyBarsPlan(columns, opts, sink)) as FilePlan<unknown>;
    case "fx":
      return fxPlan(columns, opts, sink) as FilePlan<unknown>;
    case "quotes":
      return quotesPlan(columns, sink) as FilePlan<unknown>;
    case "splits":
      return splitsPlan(columns, sink) as FilePlan<unknown>;
    case "intraday-bars":
      return intradayBarsPlan(columns, sink) as FilePlan<unknown>;
    case "etf-profiles":
      return etfProfilesPlan(columns, sink) as FilePlan<unknown>;
    case "fund-profiles":
      return fundProfilesPlan(columns, sink) as FilePlan<unknown>;
    case "holdings":
      return holdingsPlan(columns, sink) as FilePlan<unknown>;
    case "exposures":
      return exposuresPlan(columns, sink) as FilePlan<unknown>;
    case "financials":
      return financialsPlan(columns, sink) as FilePlan<unknown>;
    case "ipos":
      return iposPlan(columns, sink) as FilePlan<unknown>;
    case "dividends":
      return dividendsPlan(columns, sink) as FilePlan<unknown>;
  }
}

/** True for a time zone of the IANA database that this runtime knows. */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

function exchangesPlan(columns: readonly string[], sink: ImportSink): FilePlan<ExchangeImportRow> {
  if (!hasAll(columns, EXCHANGE_COLUMNS)) {
    throw new ImportSetupError(`exchanges: missing columns ${missing(columns, EXCHANGE_COLUMNS)}`);
  }
  return {
    format: "exchanges (store columns)",
    parse(v) {
      const code = required(v, "code").toUpperCase();
      if (!/^[A-Z0-9]{2,10}$/.test(code)) throw new RowError("code", v.code, "expected 2 to 10 letters or digits");
      const unit = currency(v, "currency");
      if (unit.per !== 1) throw new RowError("currency", v.currency, "an exchange's currency is a major unit");
      const timezone = required(v, "timezone");
      if (!isTimeZone(timezone)) throw new RowError("timezone", v.timezone, "not an IANA time zone");
      return [
        { code, name: required(v, "name"), country: country(v, "country") ?? null, currency: unit.currency, timezone },
      ];
    },
    write: (rows) => sink.upsertExchanges(rows).then(noConflicts),
  };
}

async function securitiesPlan(columns: readonly string[], sink: ImportSink): Promise<FilePlan<SecurityImportRow>> {
  const needed = ["symbol", "exchange", "currency", "type", "name"];
  if (!hasAll(columns, needed)) throw new ImportSetupError(`securities: missing columns ${missing(columns, needed)}`);
  const exchanges = await sink.exchanges();
  return {
    format: "securities (store columns)",
    async parse(v) {
      const symbol = required(v, "symbol");
      const exchange = required(v, "exchange").toUpperCase();
      if (!exchanges.has(exchange)) {
        throw new RowError(
          "exchange",
          v.exchange,
          `unknown exchange; the store has ${[...exchanges.keys()].join(", ")}`,
        );
      }
      const unit = currency(v, "currency");
      const optional = (c: string) => text(v, c) || undefined;
      return [
        {
          symbol,
          exchange,
          currency: unit.currency,
          type: securityType(v, "type"),
          name: required(v, "name"),
          isin: isin(v, "isin"),
          cusip: cusip(v, "cusip"),
          wkn: wkn(v, "wkn"),
          cik: cik(v, "cik"),
          country: country(v, "country"),
          sector: optional("sector"),
          industry: optional("industry"),
        },
      ];
    },
    write: (rows) => sink.upsertSecurities(rows),
  };
}

/** The factor a price of `isoDay` is divided by (and a volume multiplied by) to adjust it for later splits. */
export function splitFactor(splits: readonly ImportSplit[], isoDay: string): number {
  let f = 1;
  for (const s of splits) if (s.day > isoDay) f *= s.numerator / s.denominator;
  return f;
}

const BAR_COLUMNS = { o: "o", h: "h", l: "l", c: "c", v: "v" } as const;

async function dailyBarsPlan(
  columns: readonly string[],
  opts: KindOptions,
  sink: ImportSink,
): Promise<FilePlan<DailyBarImportRow>> {
  const write = (rows: readonly DailyBarImportRow[]) => sink.upsertDailyBars(rows).then(noConflicts);
  const vendor =
    opts.format === "yahoo" || opts.format === "stooq"
      ? opts.format
      : opts.format === "native"
        ? null
        : hasAll(columns, YAHOO_COLUMNS)
          ? "yahoo"
          : hasAll(columns, STOOQ_COLUMNS)
            ? "stooq"
            : null;
  if (vendor) {
    // Yahoo's columns hold Stooq's: a file named Yahoo must have its Adj Close too.
    const wanted = vendor === "yahoo" ? YAHOO_COLUMNS : STOOQ_COLUMNS;
    if (!hasAll(columns, wanted)) {
      throw new ImportSetupError(
        `a ${vendor} price download has the columns ${wanted.join(",")} (missing ${missing(columns, wanted)})`,
      );
    }
    return { ...(await priceDownload(vendor, opts, sink)), write };
  }
  if (!hasAll(columns, DAILY_BAR_COLUMNS)) {
    throw new ImportSetupError(
      `daily-bars: expected the columns ${DAILY_BAR_COLUMNS.join(",")}` +
        ` (missing ${missing(columns, DAILY_BAR_COLUMNS)}),` +
        ` or a price download (${YAHOO_COLUMNS.join(",")} or ${STOOQ_COLUMNS.join(",")})`,
    );
  }
  if (opts.symbol !== undefined)
    throw new ImportSetupError("--symbol is for a price download; this file names its own");
  const listings = new Map<string, ImportListing | null>();
  const withExchange = columns.includes("exchange");
  // The row a bar becomes; kept to one object (and its array) per bar, the import's hottest path.
  const toRow = (v: Record<string, unknown>, symbol: string, listing: ImportListing | null): DailyBarImportRow[] => {
    if (!listing) throw new RowError("symbol", symbol, "no such listing in the store (import it with securities)");
    const t = dayUnix(v, "day");
    const b = bar(v, BAR_COLUMNS);
    return [{ listingId: listing.listingId, t, o: b.o, h: b.h, l: b.l, c: b.c, v: b.v }];
  };
  // A file of exactly the store's columns has its plain lines read without records (barLine).
  const plain = columns.length === DAILY_BAR_COLUMNS.length && DAILY_BAR_COLUMNS.every((c, i) => columns[i] === c);
  return {
    format: "daily-bars (store columns)",
    ...(plain ? { line: barLine(listings) } : {}),
    parse(v) {
      const symbol = required(v, "symbol");
      const exchange = withExchange ? text(v, "exchange").toUpperCase() || undefined : undefined;
      const key = exchange === undefined ? symbol : `${symbol}\u0000${exchange}`;
      const known = listings.get(key);
      if (known !== undefined) return toRow(v, symbol, known);
      return sink.findListing(symbol, exchange).then((listing) => {
        listings.set(key, listing);
        return toRow(v, symbol, listing);
      });
    },
    write,
  };
}

/**
 * Reads a line of `symbol,day,o,h,l,c,v` straight to its bar, without splitting it nor making its record: most
 * of an import's time went to those and their garbage. It answers only a bar the record's parse would answer
 * the same (a known listing, a calendar day as YYYY-MM-DD, plain decimals that make a valid bar); any other line
 * (spaces, signs, exponents, a symbol not looked up yet, a bad bar) is left to the parse, which checks it and says
 * why it is rejected.
 */
function barLine(listings: ReadonlyMap<string, ImportListing | null>): (line: string) => DailyBarImportRow | undefined {
  let symbol = "";
  let plainSymbol = false;
  let listing: ImportListing | null | undefined;
  const commas = [0, 0, 0, 0, 0, 0];
  return (s) => {
    let n = 0;
    for (let at = s.indexOf(","); at >= 0; at = s.indexOf(",", at + 1)) {
      if (n === 6) return undefined;
      commas[n++] = at;
    }
    if (n !== 6) return undefined;
    const [c0, c1, c2, c3, c4, c5] = commas as [number, number, number, number, number, number];
    // Files come listing by listing: the last symbol's listing is the next line's too, with nothing sliced.
    if (c0 !== symbol.length || !s.startsWith(symbol)) {
      symbol = s.slice(0, c0);
      plainSymbol = symbol !== "" && symbol === symbol.trim();
      listing = undefined;
    }
    // Until the parse has looked the symbol up (its first line goes there), the map has no entry for it.
    if (listing === undefined && plainSymbol) listing = listings.get(symbol);
    if (!listing) return undefined;
    const t = plainDay(s, c0 + 1, c1);
    const o = plainDecimal(s, c1 + 1, c2);
    const h = plainDecimal(s, c2 + 1, c3);
    const l = plainDecimal(s, c3 + 1, c4);
    const c = plainDecimal(s, c4 + 1, c5);
    const v = plainDecimal(s, c5 + 1, s.length);
    // NaN fails every comparison: any field not read above goes to the parse too.
    if (!(t === t && v === v && h >= Math.max(o, c) && Math.min(o, c) >= l && l >= 0)) return undefined;
    return { listingId: listing.listingId, t, o, h, l, c, v };
  };
}

/**
 * A price download of one security (Yahoo's or Stooq's columns) for the listing `--symbol` names, created from
 * `--exchange`, `--currency` and `--name` when the store lacks it. `--prices raw` prices are divided by the splits
 * the store knows after their day (volumes multiplied), into the store's convention; `adjusted` ones are taken as
 * they are. Yahoo's "Adj Close" also removes dividends and is not read.
 */
async function priceDownload(
  vendor: "yahoo" | "stooq",
  opts: KindOptions,
  sink: ImportSink,
): Promise<Omit<FilePlan<DailyBarImportRow>, "write">> {
  if (opts.symbol === undefined) throw new ImportSetupError(`a ${vendor} price download needs --symbol`);
  if (opts.prices === undefined) {
    throw new ImportSetupError(
      "a price download needs --prices raw (as traded) or --prices adjusted (adjusted for splits, as Yahoo's Close)",
    );
  }
  const unit = opts.currency === undefined ? undefined : currencyUnit(opts.currency);
  if (opts.currency !== undefined && !unit) {
    throw new ImportSetupError(`--currency ${opts.currency}: not an ISO 4217 currency (or GBp, GBX, ZAc)`);
  }
  let listing = await sink.findListing(opts.symbol, opts.exchange);
  if (!listing) {
    if (opts.exchange === undefined || unit === undefined || opts.name === undefined) {
      throw new ImportSetupError(
        `the store has no listing ${opts.symbol}${opts.exchange ? ` on ${opts.exchange}` : ""}; ` +
          "give --exchange, --currency and --name to create it",
      );
    }
    const exchange = opts.exchange.toUpperCase();
    if (!(await sink.exchanges()).has(exchange)) throw new ImportSetupError(`--exchange ${exchange}: unknown exchange`);
    const type = (opts.type ?? "stock") as SecurityType;
    if (!["stock", "etf", "fund"].includes(type)) throw new ImportSetupError(`--type: expected stock, etf or fund`);
    const row: SecurityImportRow = { symbol: opts.symbol, exchange, currency: unit.currency, type, name: opts.name };
    if (!opts.dryRun) {
      const r = await sink.upsertSecurities([row]);
      if (r.conflicts.length > 0) throw new ImportSetupError(`${opts.symbol}: ${r.conflicts[0]!.reason}`);
      listing = await sink.findListing(opts.symbol, exchange);
    }
  }
  if (listing && unit && unit.currency !== listing.currency) {
    throw new ImportSetupError(`--currency ${opts.currency}: the listing ${listing.symbol} is in ${listing.currency}`);
  }
  const per = unit?.per ?? 1;
  const splits = listing && opts.prices === "raw" ? await sink.splits(listing.securityId) : [];
  const listingId = listing?.listingId ?? -1;
  return {
    format: `${vendor} price download of ${opts.symbol} (${opts.prices} prices)`,
    parse(v) {
      const d = day(v, "Date");
      const b = bar(v, { o: "Open", h: "High", l: "Low", c: "Close", v: "Volume" });
      const split = splitFactor(splits, d);
      const f = split * per;
      return [{ listingId, t: unixOfDay(d), o: b.o / f, h: b.h / f, l: b.l / f, c: b.c / f, v: b.v * split }];
    },
  };
}

function fxPlan(columns: readonly string[], opts: KindOptions, sink: ImportSink): FilePlan<FxImportRow> {
  const write = (rows: readonly FxImportRow[]) => sink.upsertFx(rows).then(noConflicts);
  const ecb = opts.format === "ecb" || (opts.format === undefined && columns[0] === "Date" && columns.includes("USD"));
  if (opts.format === "ecb" && (columns[0] !== "Date" || !columns.includes("USD"))) {
    throw new ImportSetupError("an ECB rates file starts with the columns Date and has a USD column");
  }
  if (ecb) {
    const currencies = columns.slice(1);
    const odd = currencies.filter((c) => !/^[A-Z]{3}$/.test(c));
    if (odd.length > 0)
      throw new ImportSetupError(`an ECB rates file has currency columns only; got ${odd.join(", ")}`);
    return {
      format: "ECB euro reference rates",
      parse(v) {
        const d = day(v, "Date");
        const rate = (c: string): number | null => {
          const t = text(v, c);
          if (t === "" || t === "N/A") return null;
          const n = /^\d+(\.\d+)?$/.test(t) ? Number(t) : Number.NaN;
          if (!Number.isFinite(n) || n <= 0) throw new RowError(c, v[c], "not a positive finite rate");
          return n;
        };
        const usd = rate("USD");
        if (usd === null) throw new RowError("USD", v.USD, "no USD rate, so no rate against the dollar that day");
        const out: FxImportRow[] = [{ currency: "EUR", day: d, perUsd: 1 / usd }];
        for (const c of currencies) {
          if (c === "USD") continue;
          const r = rate(c);
          if (r !== null) out.push({ currency: c, day: d, perUsd: r / usd });
        }
        return out;
      },
      write,
    };
  }
  if (!hasAll(columns, FX_COLUMNS)) {
    throw new ImportSetupError(
      `fx: expected the columns ${FX_COLUMNS.join(",")} (missing ${missing(columns, FX_COLUMNS)}) or an ECB rates file`,
    );
  }
  return {
    format: "fx (store columns)",
    parse(v) {
      const c = required(v, "currency");
      if (!isIsoCurrency(c)) throw new RowError("currency", v.currency, "not an ISO 4217 currency");
      if (c === "USD") throw new RowError("currency", c, "USD is 1 per USD by definition");
      const d = day(v, "day");
      const raw = text(v, "per_usd");
      const n =
        typeof v.per_usd === "number" ? v.per_usd : /^\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isFinite(n) || n <= 0) throw new RowError("per_usd", v.per_usd ?? "", "not a positive finite rate");
      return [{ currency: c, day: d, perUsd: n }];
    },
    write,
  };
}

function quotesPlan(columns: readonly string[], sink: ImportSink): FilePlan<QuoteImportRow> {
  if (!hasAll(columns, QUOTE_COLUMNS)) {
    throw new ImportSetupError(
      `quotes: expected the columns ${QUOTE_COLUMNS.join(",")} (missing ${missing(columns, QUOTE_COLUMNS)})`,
    );
  }
  const listings = new Map<string, ImportListing | null>();
  return {
    format: "quotes (store columns)",
    async parse(v) {
      const symbol = required(v, "symbol");
      const exchange = text(v, "exchange").toUpperCase() || undefined;
      const key = `${symbol}\u0000${exchange ?? ""}`;
      if (!listings.has(key)) listings.set(key, await sink.findListing(symbol, exchange));
      const listing = listings.get(key);
      if (!listing) throw new RowError("symbol", symbol, "no such listing in the store (import it with securities)");
      const t = instant(v, "t");
      const b = bar(v, { o: "o", h: "h", l: "l", c: "c", v: "v" });
      return [
        {
          listingId: listing.listingId,
          t,
          ...b,
          pc: nonNegative(v, "pc"),
          ma50: optionalNonNegative(v, "ma50"),
          ma200: optionalNonNegative(v, "ma200"),
          avgVolume: optionalNonNegative(v, "avg_volume"),
        },
      ];
    },
    write: (rows) => sink.upsertQuotes(rows).then(noConflicts),
  };
}

function intradayBarsPlan(columns: readonly string[], sink: ImportSink): FilePlan<IntradayBarImportRow> {
  needColumns("intraday-bars", columns, INTRADAY_BAR_COLUMNS);
  const listing = listingLookup(sink);
  return {
    format: "intraday-bars (store columns)",
    async parse(v) {
      const { listingId } = await listing(v);
      const t = instant(v, "t");
      if (t % INTRADAY_BAR_SECONDS !== 0) {
        throw new RowError("t", v.t, "not the start of a 5-minute bar (the store keeps 5-minute bars)");
      }
      return [{ listingId, t, ...bar(v, { o: "o", h: "h", l: "l", c: "c", v: "v" }) }];
    },
    write: (rows) => sink.upsertIntradayBars(rows).then(noConflicts),
  };
}

function splitsPlan(columns: readonly string[], sink: ImportSink): FilePlan<SplitImportRow> {
  if (!hasAll(columns, SPLIT_COLUMNS)) {
    throw new ImportSetupError(
      `splits: expected the columns ${SPLIT_COLUMNS.join(",")} (missing ${missing(columns, SPLIT_COLUMNS)})`,
    );
  }
  const listings = new Map<string, ImportListing | null>();
  const positive = (v: Record<string, unknown>, c: string): number => {
    const n = finite(v, c);
    if (n <= 0) throw new RowError(c, v[c], "must be more than 0");
    return n;
  };
  return {
    format: "splits (store columns)",
    async parse(v) {
      const symbol = required(v, "symbol");
      if (!listings.has(symbol)) listings.set(symbol, await sink.findListing(symbol));
      const listing = listings.get(symbol);
      if (!listing) throw new RowError("symbol", symbol, "no such listing in the store (import it with securities)");
      return [
        {
          securityId: listing.securityId,
          day: day(v, "day"),
          numerator: positive(v, "numerator"),
          denominator: positive(v, "denominator"),
        },
      ];
    },
    write: (rows) => sink.upsertSplits(rows).then(noConflicts),
  };
}
