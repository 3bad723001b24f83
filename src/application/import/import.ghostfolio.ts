/**
 * A Ghostfolio export (`GET /api/v1/export`, the JSON file its "Export" writes): its asset profiles of data source
 * MANUAL become securities with one listing each, and their `marketData` ({ date, marketPrice }) daily bars with
 * o = h = l = c = marketPrice and volume 0. The reader (import.readers.ts) gives each profile as one record and
 * each market data point as one record after it, numbered by its profile.
 */
import type { DailyBarImportRow, ImportCounts, ImportSink, SecurityImportRow } from "../../domain/ports/source.import";
import type { SecurityType } from "../../domain/ports/source.types";
import { unixOfDay } from "../../domain/fx/fx.service";
import { type FilePlan, ImportSetupError, noConflicts } from "./import.plan";
import { country, currency, cusip, day, finite, instant, isin, required, RowError, text } from "./import.validate";

/** The exchange of a listing made from an asset profile when `--exchange` names none: created when missing. */
export const GHOSTFOLIO_EXCHANGE = {
  code: "MANUAL",
  name: "Manual prices (imported)",
  country: null,
  currency: "USD",
  timezone: "UTC",
} as const;

/** Ghostfolio's asset sub-classes that are not stocks in the store's terms. */
const TYPE_OF_SUB_CLASS: Readonly<Record<string, SecurityType>> = {
  ETF: "etf",
  MUTUALFUND: "fund",
  CRYPTOCURRENCY: "crypto",
};

/** Which record of an export the reader gave: an asset profile, or one of its market data points. */
export const PROFILE_MARK = "__profile";
export const POINT_MARK = "__point";

interface Current {
  listingId: number;
  per: number;
  rejected: boolean;
}

/** An array of `{ code | name, weight }` holding exactly one entry: that entry's field. */
function single(values: Record<string, unknown>, column: string, field: "code" | "name"): Record<string, unknown> {
  const list = values[column];
  if (!Array.isArray(list) || list.length !== 1 || typeof list[0] !== "object" || list[0] === null) return {};
  return { [column]: (list[0] as Record<string, unknown>)[field] };
}

function securityOf(v: Record<string, unknown>, exchange: string): { row: SecurityImportRow; per: number } {
  const source = text(v, "dataSource");
  if (source !== "MANUAL") {
    throw new RowError(
      "dataSource",
      v.dataSource ?? "",
      `only MANUAL asset profiles carry their own prices; this one's come from ${source || "nowhere"}`,
    );
  }
  // The service looks symbols up upper-cased; Ghostfolio's MANUAL symbols are often lower-case UUIDs.
  const symbol = required(v, "symbol").toUpperCase();
  const unit = currency(v, "currency");
  const sub = text(v, "assetSubClass");
  return {
    row: {
      symbol,
      exchange,
      currency: unit.currency,
      type: TYPE_OF_SUB_CLASS[sub] ?? "stock",
      name: text(v, "name") || symbol,
      isin: isin(v, "isin"),
      cusip: cusip(v, "cusip"),
      country: country(single(v, "countries", "code"), "countries"),
      sector: text(single(v, "sectors", "name"), "sectors") || undefined,
    },
    per: unit.per,
  };
}

/** A market data point's day: Ghostfolio writes the UTC midnight of the day as an ISO date-time. */
function pointDay(v: Record<string, unknown>): string {
  const raw = text(v, "date");
  if (/^\d{4}-\d{2}-\d{2}$/.test(raw)) return day(v, "date");
  return new Date(instant(v, "date") * 1000).toISOString().slice(0, 10);
}

export async function ghostfolioPlan(
  kind: "daily-bars" | "securities",
  columns: readonly string[],
  opts: { exchange?: string; dryRun: boolean },
  sink: ImportSink,
): Promise<FilePlan<DailyBarImportRow | SecurityImportRow>> {
  if (!columns.includes("assetProfiles")) {
    throw new ImportSetupError("a Ghostfolio export is a JSON object with an assetProfiles list");
  }
  const exchange = opts.exchange?.toUpperCase() ?? GHOSTFOLIO_EXCHANGE.code;
  if (!(await sink.exchanges()).has(exchange)) {
    if (opts.exchange !== undefined) throw new ImportSetupError(`--exchange ${exchange}: unknown exchange`);
    if (!opts.dryRun) await sink.upsertExchanges([GHOSTFOLIO_EXCHANGE]);
  }
  const format = `Ghostfolio export (asset profiles${kind === "daily-bars" ? " and market data" : ""})`;
  if (kind === "securities") {
    return {
      format,
      skip: (v) => v[POINT_MARK] !== undefined,
      parse: (v) => [securityOf(v, exchange).row],
      write: (rows) => sink.upsertSecurities(rows as SecurityImportRow[]),
    };
  }
  const securities: ImportCounts = { inserted: 0, changed: 0, unchanged: 0 };
  let current: Current = { listingId: -1, per: 1, rejected: true };
  /** A point's RowError names its place: `marketData[3].marketPrice`. */
  const at = (v: Record<string, unknown>, e: unknown): never => {
    if (e instanceof RowError)
      throw new RowError(`marketData[${String(v[POINT_MARK])}].${e.column}`, e.value, e.message);
    throw e;
  };
  return {
    format,
    async parse(v) {
      if (v[POINT_MARK] === undefined) {
        current = { listingId: -1, per: 1, rejected: true };
        const { row, per } = securityOf(v, exchange);
        if (!opts.dryRun) {
          const r = await sink.upsertSecurities([row]);
          if (r.conflicts.length > 0) throw new RowError(r.conflicts[0]!.column, v.isin, r.conflicts[0]!.reason);
          securities.inserted += r.inserted;
          securities.changed += r.changed;
          securities.unchanged += r.unchanged;
        }
        const listing = await sink.findListing(row.symbol);
        if (listing && listing.currency !== row.currency) {
          throw new RowError("currency", v.currency, `the listing ${row.symbol} is in ${listing.currency}`);
        }
        current = { listingId: listing?.listingId ?? -1, per, rejected: false };
        return [];
      }
      if (current.rejected) throw new RowError("", "", "its asset profile was rejected");
      try {
        const d = pointDay(v);
        const price = finite(v, "marketPrice");
        if (price < 0) throw new RowError("marketPrice", v.marketPrice, "must not be negative");
        const p = price / current.per;
        return [{ listingId: current.listingId, t: unixOfDay(d), o: p, h: p, l: p, c: p, v: 0 }];
      } catch (e) {
        return at(v, e);
      }
    },
    write: (rows) => sink.upsertDailyBars(rows as DailyBarImportRow[]).then(noConflicts),
    also: () => (opts.dryRun ? undefined : { kind: "securities", counts: securities }),
  };
}
