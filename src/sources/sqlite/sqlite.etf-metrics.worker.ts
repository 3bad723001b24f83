import { move, Piscina } from "piscina";
import { NotFoundError } from "../../platform/errors";
import { FX_LOOKBACK_DAYS } from "../../domain/fx/fx.service";
import {
  computeColumns,
  convertColumns,
  dayOfUnix,
  type MetricsColumns,
  type PerUsdColumns,
} from "../../domain/etf/etf.metrics";
import type { MetricsJob, MetricsJobAnswer, MetricsJobResult } from "../../domain/etf/etf.metrics.jobs";
import { EtfClosesReader, type FxColumns } from "./sqlite.etf-closes";

/**
 * ETF metrics in a worker thread (src/platform/workers/worker.pool.ts runs
 * it; SqliteSource.etfMetricsWorker names it): the daily closes and FX rates
 * are read here, with this thread's own read-only connection to the SQLite
 * store (sqlite.etf-closes.ts), and the maths, the service's own
 * (src/domain/etf/etf.metrics.ts), runs here, so neither blocks the event
 * loop that answers every other request. The messages are
 * src/domain/etf/etf.metrics.jobs.ts's.
 */

const readers = new Map<string, EtfClosesReader>();

function readerOf(path: string): EtfClosesReader {
  let r = readers.get(path);
  if (!r) readers.set(path, (r = new EtfClosesReader(path)));
  return r;
}

const DAY = 86_400;

class NoFx extends Error {}

export default function runMetricsJob(job: MetricsJob): unknown {
  const reader = readerOf(job.store);
  reader.queries = 0;
  const closes = reader.closes(job.items);

  // Every FX series the items need, in one statement (as the request's fxRates loader would batch them).
  const fxKeys = new Map<string, number>();
  const fxRange = (currency: string, firstT: number, lastT: number): [string, string, string] => {
    const start = dayOfUnix(Math.floor(firstT / DAY) * DAY - FX_LOOKBACK_DAYS * DAY);
    return [currency, start, dayOfUnix(lastT)];
  };
  job.items.forEach((item, i) => {
    const { t } = closes[i]!;
    if (t.length === 0 || item.currency === item.listingCurrency) return;
    for (const c of [item.listingCurrency, item.currency]) {
      const key = JSON.stringify(fxRange(c, t[0]!, t[t.length - 1]!));
      if (c !== "USD" && !fxKeys.has(key)) fxKeys.set(key, fxKeys.size);
    }
  });
  const fx: FxColumns[] = reader.fxRates([...fxKeys.keys()].map((k) => JSON.parse(k) as [string, string, string]));
  const typedFx = new Map<number, PerUsdColumns>();
  const series = (currency: string, firstT: number, lastT: number): PerUsdColumns => {
    if (currency === "USD") return "usd";
    const range = fxRange(currency, firstT, lastT);
    const k = fxKeys.get(JSON.stringify(range))!;
    const rowsOf = fx[k]!;
    if (rowsOf.days.length === 0) throw new NoFx(`no FX rates for ${currency} between ${range[1]} and ${range[2]}`);
    let typed = typedFx.get(k);
    if (!typed) {
      typed = { days: Int32Array.from(rowsOf.days), perUsd: Float64Array.from(rowsOf.perUsd) };
      typedFx.set(k, typed);
    }
    return typed;
  };

  const computed: MetricsColumns[] = [];
  const times: Float64Array[] = [];
  const values: Float64Array[] = [];
  const answers: MetricsJobAnswer[] = job.items.map((item, i) => {
    const { t, c } = closes[i]!;
    if (t.length === 0) {
      const range = `between ${dayOfUnix(item.from)} and ${dayOfUnix(item.to)}`;
      return { ok: false, notFound: `no daily closes of ${item.symbol} ${range}`, noCloses: true };
    }
    try {
      let v = c;
      let filled: number[] = [];
      if (item.currency !== item.listingCurrency) {
        const a = series(item.listingCurrency, t[0]!, t[t.length - 1]!);
        const z = series(item.currency, t[0]!, t[t.length - 1]!);
        const names = { from: item.listingCurrency, to: item.currency };
        ({ values: v, filled } = convertColumns(t, c, a, z, names));
      }
      const m = computeColumns(t, v, item.resolution, job.riskFreeRatePercent);
      computed.push(m);
      times.push(t);
      values.push(v);
      const firstFilledDay = filled.length === 0 ? null : dayOfUnix(t[filled[0]!]!);
      const points = m.sampled.length;
      return {
        ok: true,
        scalars: m.scalars,
        points,
        offset: 0,
        bars: t.length,
        filledDays: filled.length,
        firstFilledDay,
      };
    } catch (e) {
      // A missing FX series or rate is the item's own NOT_FOUND, as in process.
      if (e instanceof NoFx || e instanceof NotFoundError) return { ok: false, notFound: e.message };
      throw e;
    }
  });

  const total = computed.reduce((n, m) => n + m.sampled.length, 0);
  const packed = new Float64Array(total * 4);
  let at = 0;
  let r = 0;
  for (const a of answers) {
    if (!a.ok) continue;
    a.offset = at;
    const m = computed[r]!;
    const [t, v] = [times[r]!, values[r]!];
    r++;
    for (let j = 0; j < m.sampled.length; j++, at++) {
      const i = m.sampled[j]!;
      packed[at * 4] = t[i]!;
      packed[at * 4 + 1] = v[i]!;
      packed[at * 4 + 2] = m.periodReturn[j]!;
      packed[at * 4 + 3] = m.cumulativeReturn[j]!;
    }
  }
  const result: MetricsJobResult = { answers, packed, queries: reader.queries };
  return withTransfer(result, packed.buffer as ArrayBuffer);
}

/** The result, with its packed buffer moved to the main thread rather than copied (piscina's Transferable). */
function withTransfer(result: MetricsJobResult, buffer: ArrayBuffer): unknown {
  const transferable = { [Piscina.transferableSymbol]: buffer, [Piscina.valueSymbol]: result };
  return move(transferable as unknown as Parameters<typeof move>[0]);
}
