import { easterSunday } from "../../../platform/clock";
import type { ProviderHttp } from "../provider.http";
import { fetchWith, type IngestPlan, type IngestQuery, type Provider } from "../provider.types";
import { dailyFetcher, histFetcher } from "./ecb.fetchers";
import { type EcbLast, ecbLoads } from "./ecb.loads";
import type { EcbTable } from "./ecb.rates";

/** The ECB publishes no request limit; two a second is far below what a browser asks of the same site. */
export const ECB_PER_SECOND = 2;

const DAY_MS = 86_400_000;

/** Easter Sunday of a year as a UTC day (ms). */
function easter(year: number): number {
  const { month, day } = easterSunday(year);
  return Date.UTC(year, month - 1, day);
}

/** Whether the ECB publishes rates on `t` (a UTC day): a weekday that is no TARGET closing day. */
function isFixingDay(t: number): boolean {
  const at = new Date(t);
  const weekday = at.getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  const md = at.toISOString().slice(5, 10);
  if (md === "01-01" || md === "05-01" || md === "12-25" || md === "12-26") return false;
  const e = easter(at.getUTCFullYear());
  return t !== e - 2 * DAY_MS && t !== e + DAY_MS;
}

/**
 * Whether the ECB published rates between two days (both excluded) that a store holding `last` lacks: a daily file
 * then cannot bring it up to date, and the history is fetched instead.
 */
export function missedFixings(last: string, newest: string): boolean {
  const end = Date.parse(`${newest}T00:00:00Z`);
  for (let t = Date.parse(`${last}T00:00:00Z`) + DAY_MS; t < end; t += DAY_MS) if (isFixingDay(t)) return true;
  return false;
}

function readState(state: string | undefined): EcbLast | undefined {
  if (state === undefined) return undefined;
  try {
    const s = JSON.parse(state) as Partial<EcbLast>;
    if (typeof s.day === "string" && s.rates && typeof s.rates === "object") return s as EcbLast;
  } catch {
    // A state this code did not write: as if none.
  }
  return undefined;
}

/**
 * The ECB's euro foreign exchange reference rates (keyless). Datasets: `hist`, every working day since 1999 (one
 * call, a ZIP of about 600 KB); `daily`, the latest day. Without a dataset, a store that holds the history gets
 * only the days after its last one from the daily file, and a store without it (or missing a fixing before the
 * daily file's) the history.
 */
export const ecbProvider: Provider = {
  name: "ecb",
  datasets: ["hist", "daily"],
  async fetch(query: IngestQuery, http: ProviderHttp, state: string | undefined): Promise<IngestPlan> {
    const last = readState(state);
    const notes: string[] = [];
    const calls0 = http.requests;
    let dataset = query.dataset;
    let table: EcbTable;
    let source: string;
    if (dataset === undefined && last) {
      table = await fetchWith(http, dailyFetcher, undefined);
      source = "eurofxref-daily.xml";
      const newest = table.days[table.days.length - 1]!.day;
      if (missedFixings(last.day, newest)) {
        notes.push(`the store's last fixing is ${last.day} and the daily file's ${newest}: fetching the history`);
        const daily = table;
        const hist = await fetchWith(http, histFetcher, undefined);
        // The history may not have the daily file's day yet (it is published later): both, the history first.
        const later = daily.days.filter((d) => !hist.days.some((h) => h.day === d.day));
        table = {
          currencies: [...new Set([...hist.currencies, ...daily.currencies])],
          days: [...hist.days, ...later],
        };
        source = "eurofxref-hist.csv and eurofxref-daily.xml";
      }
      dataset = "daily";
    } else if (dataset === "daily") {
      table = await fetchWith(http, dailyFetcher, undefined);
      source = "eurofxref-daily.xml";
    } else {
      dataset = "hist";
      table = await fetchWith(http, histFetcher, undefined);
      source = "eurofxref-hist.csv";
    }
    const fetched = table.days.length;
    let days = table.days;
    // An automatic run writes only the days after the last stored one; a named dataset rewrites what it holds.
    if (query.dataset === undefined && last) days = days.filter((d) => d.day > last.day);
    if (query.since !== undefined) days = days.filter((d) => d.day >= query.since!);
    if (days.length < fetched) notes.push(`${fetched} days fetched, ${days.length} new or on or after --since`);
    if (days.length === 0) notes.push("no fixing to write");
    const symbols = query.symbols ? new Set(query.symbols.map((s) => s.toUpperCase())) : undefined;
    const newest = days[days.length - 1];
    const kept = last ? [{ day: last.day, rates: last.rates }, ...(last.before ? [last.before] : [])] : [];
    let loads = ecbLoads({ currencies: table.currencies, days }, source, { previous: kept, symbols });
    if (newest && last && newest.day < last.day) {
      // A quote never goes back in time: the store's are from a later fixing than any this run wrote.
      loads = loads.filter((l) => l.kind !== "quotes");
      notes.push(`quotes left as they are: the store's are of ${last.day}, after ${newest.day}`);
    }
    let nextState: string | undefined;
    if (newest && (!last || newest.day >= last.day)) {
      // The fixing before the newest: the run's own day before it, or the latest one kept that is older.
      const before = [...days.slice(0, -1).slice(-1), ...kept]
        .filter((k) => k.day < newest.day)
        .sort((a, b) => (a.day < b.day ? 1 : -1))[0];
      const state: EcbLast = { day: newest.day, rates: newest.rates };
      if (before) state.before = { day: before.day, rates: before.rates };
      nextState = JSON.stringify(state);
    }
    return { dataset, calls: http.requests - calls0, loads, nextState, notes };
  },
};
