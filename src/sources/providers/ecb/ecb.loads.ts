import { BAR_LOAD_COLUMNS, QUOTE_LOAD_COLUMNS } from "../provider.types";
import * as currencyCodes from "currency-codes";
import { isIsoCurrency, unixOfDay } from "../../../domain/fx/fx.service";
import type { IngestLoad, IngestRecord } from "../../../domain/ports/source.ingest";
import type { EcbDay, EcbTable } from "./ecb.rates";

/**
 * The last day a run wrote, kept for the next: its day cuts the next daily run, its rates (and the fixing before
 * it, `before`) give the previous closes of a run that fetched a single day.
 */
export interface EcbLast {
  day: string;
  rates: Record<string, string>;
  before?: { day: string; rates: Record<string, string> };
}

/** The exchange forex pairs list on, created when the store lacks it (the sample's own definition). */
export const FOREX_EXCHANGE = {
  code: "FOREX",
  name: "Foreign Exchange (composite)",
  country: "",
  currency: "USD",
  timezone: "America/New_York",
};

/** A pair the ECB's rates give: `EURJPY` is the published rate; `USDJPY` is crossed through the euro. */
interface Pair {
  symbol: string;
  base: "EUR" | "USD";
  quote: string;
}

const PLAIN = /^\d+(\.\d+)?$/;

/** The pair's close on `day` as text (the published number for a euro pair), or undefined when it has none. */
function close(pair: Pair, rates: Record<string, string>): string | number | undefined {
  const r = rates[pair.quote];
  if (r === undefined) return undefined;
  if (pair.base === "EUR") return r;
  const usd = rates.USD;
  if (usd === undefined) return undefined;
  // A rate that is not a plain positive number goes to the import as written, which rejects it with its reason.
  if (!PLAIN.test(r)) return r;
  if (!PLAIN.test(usd)) return usd;
  return Number(r) / Number(usd);
}

/** Whether the pair has a close on a day of `rates`: `close` without reading the numbers (counts and searches). */
function has(pair: Pair, rates: Record<string, string>): boolean {
  return rates[pair.quote] !== undefined && (pair.base === "EUR" || rates.USD !== undefined);
}

function name(code: string): string {
  return currencyCodes.code(code)?.currency.trim() ?? code;
}

/** Every pair of the table's currencies that the service can list: ISO 4217 codes in use (not CYP, MTL, …). */
export function ecbPairs(currencies: readonly string[], symbols?: ReadonlySet<string>): Pair[] {
  const pairs: Pair[] = [];
  for (const c of currencies) {
    if (!isIsoCurrency(c)) continue;
    if (c !== "EUR") pairs.push({ symbol: `EUR${c}`, base: "EUR", quote: c });
  }
  for (const c of currencies) {
    if (!isIsoCurrency(c)) continue;
    if (c !== "USD" && c !== "EUR") pairs.push({ symbol: `USD${c}`, base: "USD", quote: c });
  }
  return symbols ? pairs.filter((p) => symbols.has(p.symbol)) : pairs;
}

/**
 * The imports one table of rates becomes, in order: the FOREX exchange and the pairs' listings where the store
 * lacks them; the rates, in the ECB's own columns, so the `fx` kind turns them into units per dollar exactly as it
 * reads an `eurofxref-hist.csv` (EUR is 1 / USD, X is X / USD, withdrawn currencies kept); each pair's daily bars
 * (o = h = l = c = the fixing, no volume), pair by pair; and each pair's quote on its last day, its previous close
 * taken from the day before in the table or, for a single day, from what the last run kept.
 */
export function ecbLoads(
  table: EcbTable,
  source: string,
  opts: { previous?: readonly { day: string; rates: Record<string, string> }[]; symbols?: ReadonlySet<string> } = {},
): IngestLoad[] {
  const { days, currencies } = table;
  // The history is some 7,000 days of 60 pairs, and this runs inside the service on a schedule: counting and
  // searching test presence only, and the numbers are read once, as the import takes each bar.
  const pairs = ecbPairs(currencies, opts.symbols).filter((p) => days.some((d) => has(p, d.rates)));
  let bars = 0;
  for (const d of days) for (const p of pairs) if (has(p, d.rates)) bars++;

  const fxRecords = function* (): Generator<IngestRecord> {
    for (const d of days) {
      const values: Record<string, unknown> = { Date: d.day };
      for (const c of currencies) values[c] = d.rates[c] ?? "N/A";
      yield { row: d.row, values };
    }
  };
  // Pair by pair, each pair's days in order: the rows reach the bars table in its key's order (listing, day), so
  // each insert appends to the pages it wrote last. Day by day, each of ~60 pairs a day touched another page: the
  // whole history took twice as long (BENCH_ONLY=providers: 30.5 s against 15.0 s).
  const barRecords = function* (): Generator<IngestRecord> {
    for (const p of pairs) {
      for (const d of days) {
        const c = close(p, d.rates);
        if (c === undefined) continue;
        yield { row: d.row, values: { symbol: p.symbol, day: d.day, o: c, h: c, l: c, c, v: 0 } };
      }
    }
  };
  const quotes: IngestRecord[] = [];
  for (const p of pairs) {
    // The pair's last day in the table and the one before it, searched from the newest day.
    let last: EcbDay | undefined;
    let before: string | number | undefined;
    for (let i = days.length - 1; i >= 0; i--) {
      const d = days[i]!;
      if (!has(p, d.rates)) continue;
      if (last) {
        before = close(p, d.rates);
        break;
      }
      last = d;
    }
    if (!last) continue;
    const c = close(p, last.rates)!;
    if (before === undefined) {
      // The latest kept fixing before this one (the day itself may be fetched again).
      const kept = (opts.previous ?? []).filter((k) => k.day < last!.day).sort((a, b) => (a.day < b.day ? 1 : -1));
      for (const k of kept) if ((before = close(p, k.rates)) !== undefined) break;
    }
    quotes.push({
      row: last.row,
      values: { symbol: p.symbol, t: unixOfDay(last.day), o: c, h: c, l: c, c, pc: before ?? c, v: 0 },
    });
  }
  const securities: IngestRecord[] = pairs.map((p, i) => ({
    row: i + 1,
    values: {
      symbol: p.symbol,
      exchange: FOREX_EXCHANGE.code,
      currency: p.quote,
      type: "forex",
      name: `${name(p.base)} / ${name(p.quote)}`,
    },
  }));
  return [
    {
      kind: "exchanges",
      name: `${source} (exchange)`,
      columns: Object.keys(FOREX_EXCHANGE),
      records: pairs.length > 0 ? [{ row: 1, values: { ...FOREX_EXCHANGE } }] : [],
      count: pairs.length > 0 ? 1 : 0,
      createOnly: true,
    },
    {
      kind: "securities",
      name: `${source} (pairs)`,
      columns: ["symbol", "exchange", "currency", "type", "name"],
      records: securities,
      count: securities.length,
      createOnly: true,
    },
    {
      kind: "fx",
      name: source,
      columns: ["Date", ...currencies],
      records: { [Symbol.iterator]: fxRecords },
      count: days.length,
    },
    {
      kind: "daily-bars",
      name: `${source} (pair bars)`,
      columns: BAR_LOAD_COLUMNS,
      records: { [Symbol.iterator]: barRecords },
      count: bars,
    },
    {
      kind: "quotes",
      name: `${source} (pair quotes)`,
      columns: QUOTE_LOAD_COLUMNS,
      records: quotes,
      count: quotes.length,
    },
  ];
}
