import type { RequestContext } from "../request.context";
import type { IngestJobStatus } from "./status.ingest";
import type { LatestBarRow } from "../ports/source.types";
import { hasCapability, type MarketDataSource } from "../ports/source.capabilities";

/** `GET /v1/status` (docs/contract.md section 1): the service's health, its source, and how current its bars are. */
export interface ServiceStatus {
  status: "ok";
  /** `MDG_DATA_SOURCE`: where market data comes from (`sqlite`, `postgres`, `upstream`). */
  source: string;
  /** Unix seconds, the service's clock. */
  time: number;
  assetClasses: AssetClassStatus[];
  /** The scheduled ingest jobs (MDG_INGEST), present only when the service runs some. */
  ingest?: IngestJobStatus[];
}

export interface AssetClassStatus {
  type: string;
  /** Day of the latest daily bar of any of its listings (`YYYY-MM-DD`), null when none has one. */
  latestDailyBar: string | null;
  /** Unix seconds of the latest intraday bar, null when none. */
  latestIntradayBar: number | null;
}

/**
 * The latest bars per kind of security are a whole-store read (one index seek per listing): read once per data
 * version of the source, so a client polling status costs a lookup in memory, and a loader's commit is seen at once.
 */
const latest = new WeakMap<MarketDataSource, { version: number; rows: Promise<LatestBarRow[]> }>();

function latestBars(source: MarketDataSource): Promise<LatestBarRow[]> {
  if (!hasCapability(source, "bars")) return Promise.resolve([]);
  const version = source.dataVersion?.();
  const held = latest.get(source);
  if (held && version !== undefined && held.version === version) return held.rows;
  const rows = source.getLatestBars();
  if (version !== undefined) {
    latest.set(source, { version, rows });
    // A failed read is not kept: the next call tries again.
    rows.catch(() => latest.delete(source));
  }
  return rows;
}

/** A store that cannot be read fails the call (500 INTERNAL): status must not say "ok" for a service that is not. */
export async function serviceStatus(ctx: RequestContext): Promise<ServiceStatus> {
  await ctx.source.ping();
  const rows = await latestBars(ctx.source);
  return {
    status: "ok",
    source: ctx.source.kind,
    time: Math.floor(ctx.clock.now().getTime() / 1000),
    assetClasses: rows.map((r) => ({
      type: r.type,
      latestDailyBar: r.dailyTo === null ? null : new Date(r.dailyTo * 1000).toISOString().slice(0, 10),
      latestIntradayBar: r.intradayTo,
    })),
    ...(ctx.ingestStatus && { ingest: [...ctx.ingestStatus()] }),
  };
}
