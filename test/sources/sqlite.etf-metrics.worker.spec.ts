import runMetricsJob from "../../src/sources/sqlite/sqlite.etf-metrics.worker";
import type { MetricsJobItem, MetricsJobResult } from "../../src/domain/etf/etf.metrics.jobs";
import { computeMetrics, convertCloses, type MetricResolution } from "../../src/domain/etf/etf.metrics";
import { loadFxSeries } from "../../src/domain/fx/fx.service";
import { NotFoundError } from "../../src/platform/errors";
import { createContext } from "../../src/http/http.context";
import { createTestApp, type TestApp } from "../helpers/app";
import { TEST_STORE_PATH } from "../helpers/constants";

/**
 * The worker's job (its own connection and statements: closes, computed
 * sample paths, FX ranges with their lookback; the series packed) against
 * the in-process path (the loaders' rows through etf.metrics.ts's row
 * functions): the maths is the same module, so every figure and every
 * point must be the same double, for every resolution, in the listing's
 * currency and converted, and every refusal the same message.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

function jobResult(items: MetricsJobItem[]): MetricsJobResult {
  const moved = runMetricsJob({ store: TEST_STORE_PATH, riskFreeRatePercent: 2.5, items }) as Record<symbol, unknown>;
  // What piscina posts back: the value of the Transferable the worker returns.
  return moved[Symbol.for("Piscina.valueOf")] as MetricsJobResult;
}

const RESOLUTIONS: MetricResolution[] = ["D", "W", "M"];

it.each(RESOLUTIONS)(
  "answers what the in-process path answers, resolution %s, in three currencies",
  async (resolution) => {
    const rows = t.source.db
      .prepare(
        `SELECT l.id, l.symbol, l.currency FROM securities s JOIN listings l ON l.security_id = s.id
          AND l.is_primary = 1
       WHERE s.type = 'etf' ORDER BY l.symbol LIMIT 8`,
      )
      .all() as { id: number; symbol: string; currency: string }[];
    const ctx = createContext(t.deps, "typed-spec", null);
    const from = 1_451_606_400;
    const to = 1_763_596_800;
    const items: MetricsJobItem[] = rows.flatMap((r) =>
      ["", "EUR", "JPY"].map((c) => {
        const currency = c || r.currency;
        return { listingId: r.id, from, to, resolution, listingCurrency: r.currency, currency, symbol: r.symbol };
      }),
    );
    const result = jobResult(items);
    expect(result.answers).toHaveLength(items.length);
    for (const [i, item] of items.entries()) {
      const bars = await ctx.loaders.dailyBars.load({ listingId: item.listingId, from, to });
      const answer = result.answers[i]!;
      let expected;
      try {
        const day = (x: number) => new Date(x * 1000).toISOString().slice(0, 10);
        const conversion =
          item.currency === item.listingCurrency
            ? { points: bars.map((b) => ({ t: b.t, date: day(b.t), value: b.c })), filledDays: [] as string[] }
            : convertCloses(
                bars,
                await loadFxSeries(ctx, item.listingCurrency, day(bars[0]!.t), day(bars.at(-1)!.t)),
                await loadFxSeries(ctx, item.currency, day(bars[0]!.t), day(bars.at(-1)!.t)),
                { from: item.listingCurrency, to: item.currency },
              );
        expected = { m: computeMetrics(conversion.points, resolution, 2.5), filled: conversion.filledDays };
      } catch (e) {
        if (!(e instanceof NotFoundError)) throw e;
        expect(answer).toEqual({ ok: false, notFound: e.message });
        continue;
      }
      if (!answer.ok) throw new Error(`worker refused ${item.symbol} ${item.currency}: ${answer.notFound}`);
      const { series, ...scalars } = expected.m;
      expect(answer.scalars).toEqual(scalars);
      expect(answer.filledDays).toBe(expected.filled.length);
      expect(answer.firstFilledDay).toBe(expected.filled[0] ?? null);
      expect(answer.points).toBe(series.length);
      const packed = Array.from(result.packed.subarray(answer.offset * 4, (answer.offset + answer.points) * 4));
      const want = series.flatMap((p) => [p.t, p.value, p.periodReturn ?? Number.NaN, p.cumulativeReturn]);
      // Object.is: the same doubles, -0 and NaN included.
      expect(packed.every((x, k) => Object.is(x, want[k]))).toBe(true);
    }
  },
);
