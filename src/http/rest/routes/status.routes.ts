import { z } from "zod";
import { day, stringOf, unixSeconds } from "../rest.response";
import { example } from "../rest.examples";
import { VERSIONS, type HandlerRoute } from "../rest.route";
import type { LimitDecision } from "../../../platform/quotas/quota.types";
import { serviceStatus } from "../../../domain/status/status.service";

/** Neither takes a body: one sent is read (it must be JSON, as everywhere) and its fields are ignored. */
const noBody = z.object({}).describe("No fields: a body, if sent, is ignored");

const rowCounts = z.object({
  inserted: z.int().describe("Rows new to the store"),
  changed: z.int().describe("Rows whose stored values differed"),
  unchanged: z.int().describe("Rows already as fetched"),
});

const ingestRun = z.object({
  startedAt: unixSeconds.describe("When the run started, Unix seconds"),
  endedAt: unixSeconds.nullable().describe("When it ended, Unix seconds; null while it runs"),
  outcome: stringOf(["ok", "rejected", "failed"])
    .nullable()
    .describe(
      "ok: every row went in; rejected: some rows were rejected, the others went in; failed: the run failed and " +
        "wrote nothing more (retried while attempts remain); null while it runs",
    ),
  dataset: z.string().nullable().describe("The dataset fetched (hist, daily, tickers), once known"),
  attempt: z.int().describe("1 for the scheduled run, 2 and more for its retries"),
  rows: rowCounts.describe("Rows the run wrote, every import of it together"),
  rejected: z.int().describe("Rows the run rejected"),
  error: z.string().nullable().describe("Why the run failed, with every key hidden; null when it did not"),
});

const ingestJob = z.object({
  job: z.string().describe("The job as MDG_INGEST names it: provider, or provider:dataset"),
  provider: z.string().describe("The provider (docs/providers.md)"),
  dataset: z.string().nullable().describe("The dataset the entry names; null when the provider picks"),
  schedule: z.string().describe("The cron expression (five fields)"),
  timezone: z.string().describe("The IANA zone the expression is read in"),
  nextRun: unixSeconds.nullable().describe("The next scheduled run, Unix seconds"),
  running: z.boolean().describe("Whether this replica is running it now (retries and their waits included)"),
  lastRun: ingestRun.nullable().describe("This replica's last run; null before its first"),
  lastError: z
    .object({
      at: unixSeconds.describe("When, Unix seconds"),
      message: z.string().describe("What happened, with every key hidden"),
    })
    .nullable()
    .describe("This replica's last failure, kept after later runs succeed; null when none"),
});

const statusResponse = z.object({
  status: stringOf(["ok"]).describe("ok: the service answers and its store is readable (otherwise the call is a 500)"),
  source: stringOf(["sqlite", "postgres", "upstream"]).describe("Where market data comes from (MDG_DATA_SOURCE)"),
  time: unixSeconds.describe("The service's clock, Unix seconds"),
  assetClasses: z
    .array(
      z.object({
        type: stringOf(["crypto", "etf", "forex", "fund", "stock"]).describe("Kind of security"),
        latestDailyBar: day.nullable().describe("Day of the latest daily bar of any of its listings"),
        latestIntradayBar: unixSeconds.nullable().describe("Unix seconds of the latest intraday bar of any listing"),
      }),
    )
    .describe("Every kind of security the store lists, by name"),
  ingest: z
    .array(ingestJob)
    .optional()
    .describe(
      "The ingest jobs this replica runs on a schedule (MDG_INGEST), in its order; absent when it runs none. " +
        "With PostgreSQL one replica runs each scheduled time: another replica's runs show in its own status",
    ),
});

/**
 * `GET` or `POST /v0/status` and `/v1/status` (the public SDK calls `GET /v0/status`): any valid key, one unit of its
 * rate and quota like any call (it reads the store; docs/contract.md section 1).
 */
export const statusRoute: HandlerRoute<Record<string, never>> = {
  path: "status",
  summary: "Health of the service, its data source, and the latest bar of each kind of security",
  versions: VERSIONS,
  scope: null,
  description: "Needs any valid key (no scope). Costs one unit of the key's rate and quota, like any call.",
  methods: ["GET", "POST"],
  body: noBody as z.ZodType<Record<string, never>>,
  response: statusResponse,
  examples: () => ({ empty: example("No fields", {}) }),
  run: (_body, ctx) => serviceStatus(ctx),
};

const policyState = z.object({
  name: stringOf(["minute", "day"]).describe("The policy, as the RateLimit header fields name it"),
  quota: z.int().describe("Units allowed per window (RateLimit-Policy q)"),
  windowSeconds: z.int().describe("Length of the window in seconds (RateLimit-Policy w)"),
  used: z.int().describe("Units counted in the current window"),
  remaining: z.int().describe("Units left in the current window (RateLimit r)"),
  resetSeconds: z.int().describe("Seconds until the window ends and its units come back (RateLimit t)"),
  resetsAt: unixSeconds.describe("When the window ends, Unix seconds (minutes on the minute, days at 00:00 UTC)"),
});

const quotaResponse = z.object({
  keyId: z.string().describe("The calling key's public id (never the key itself)"),
  allowed: z.boolean().describe("Whether a call of one unit would be served now"),
  retryAfterSeconds: z.int().describe("When not allowed: seconds until it would be (0 when allowed)"),
  policies: z.array(policyState).describe("The key's rate per minute, then its quota per UTC day"),
});

export type QuotaAnswer = z.infer<typeof quotaResponse>;

/** The key's limits as the RateLimit header fields of the same answer state them. */
export function quotaAnswer(keyId: string, limits: LimitDecision, nowMs: number): QuotaAnswer {
  return {
    keyId,
    allowed: limits.allowed,
    retryAfterSeconds: limits.retryAfterSeconds,
    policies: limits.policies.map((p) => ({
      name: p.name,
      quota: p.quota,
      windowSeconds: p.windowSeconds,
      used: p.quota - p.remaining,
      remaining: p.remaining,
      resetSeconds: p.resetSeconds,
      // Windows are fixed on the clock (the minute, the UTC day), so the end is exact; resetSeconds rounds it up.
      resetsAt: (Math.floor(nowMs / 1000 / p.windowSeconds) + 1) * p.windowSeconds,
    })),
  };
}

/**
 * `GET` or `POST /v0/quota` and `/v1/quota`: the calling key's limits, what is left and when each window resets. It
 * costs nothing: a call that spent what it reports would report one unit less than the key has, and a client whose
 * quota is spent must still be able to ask when it comes back (docs/contract.md section 1).
 */
export const quotaRoute: HandlerRoute<Record<string, never>> = {
  path: "quota",
  summary: "The calling key's rate and daily quota: what is left and when each window resets (costs no unit)",
  versions: VERSIONS,
  scope: null,
  description:
    "Needs any valid key (no scope). Costs nothing, so it answers even when the quota is spent; its `RateLimit` " +
    "header fields state the same numbers as its body.",
  methods: ["GET", "POST"],
  counted: false,
  body: noBody as z.ZodType<Record<string, never>>,
  response: quotaResponse,
  examples: () => ({ empty: example("No fields", {}) }),
  run: async (_body, ctx, _version, call) => {
    if (!call.limits || !ctx.principal) throw new Error("quota: the router gives every call a key and its limits");
    return quotaAnswer(ctx.principal.keyId, call.limits, ctx.clock.now().getTime());
  },
};

/** Routes about the service and the calling key, beside the route table of market data. */
export const SERVICE_ROUTES: readonly HandlerRoute[] = [statusRoute as HandlerRoute, quotaRoute as HandlerRoute];
