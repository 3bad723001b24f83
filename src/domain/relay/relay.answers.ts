import { InvalidArgumentError, NotAvailableError } from "../../platform/errors";
import { namedIdentifiers, type SecurityRef } from "../instrument/instrument.service";
import type { RequestContext } from "../request.context";

/**
 * The Bavest endpoints no store of this service holds the data of (news, ESG scores, transcripts, estimates,
 * sentiment, calendars), spelled as the Bavest SDKs post them, with what each serves. Only gateway mode answers
 * them: it passes the request to its upstream and returns the upstream's answer (docs/contract.md section 9).
 */
export const RELAYED_ENDPOINTS = {
  "stock/news": "company news",
  "stock/esg": "ESG scores",
  "stock/earning_call_transacript": "earnings call transcripts",
  "stock/ipo/prospectus": "IPO prospectuses",
  "stock/analyst_estimates": "analyst estimates",
  "calender/economics": "the economic calendar",
  sentiment: "news sentiment",
  "sentiment/social": "social media sentiment",
  news: "market news",
} as const;

export type RelayedEndpoint = keyof typeof RELAYED_ENDPOINTS;

/** The request as the upstream takes it: the fields the client sent that the endpoint reads, absent ones left out. */
export type RelayedBody = Readonly<Record<string, string | number>>;

/** The upstream's answer, a JSON object passed on as it came. */
export type RelayedAnswer = Record<string, unknown>;

/** Answers of the relayed endpoints (the answer level: see etf/etf.answers.ts). */
export interface RelayAnswers {
  answer(ctx: RequestContext, endpoint: RelayedEndpoint, body: RelayedBody): Promise<RelayedAnswer>;
}

/** The message of a relayed endpoint's 404 over a store of `kind`. */
export function notServedMessage(kind: string, endpoint: RelayedEndpoint): string {
  return (
    `${endpoint}: this service's data source (${kind}) holds no ${RELAYED_ENDPOINTS[endpoint]}; ` +
    "it is served in gateway mode (MDG_DATA_SOURCE=upstream), from an upstream that serves it"
  );
}

/** What a store-backed service answers for a relayed endpoint: 404 NOT_AVAILABLE, never a made-up empty answer. */
export function notServedByStore(ctx: RequestContext, endpoint: RelayedEndpoint): NotAvailableError {
  return new NotAvailableError(notServedMessage(ctx.source.kind, endpoint), endpoint);
}

/** A row store holds none of this data: every relayed endpoint is NOT_AVAILABLE. */
export const ROW_STORE_RELAY_ANSWERS: RelayAnswers = Object.freeze({
  async answer(ctx: RequestContext, endpoint: RelayedEndpoint): Promise<RelayedAnswer> {
    throw notServedByStore(ctx, endpoint);
  },
});

/**
 * The one identifier a relayed endpoint of one security passes on; none or more than one is INVALID_ARGUMENT, as
 * everywhere (docs/contract.md section 1). The upstream judges the identifier itself.
 */
export function relayedSecurity(ref: SecurityRef): RelayedBody {
  const named = namedIdentifiers(ref);
  if (named.length !== 1) {
    throw new InvalidArgumentError("name the security by exactly one of symbol, isin, cusip or wkn", [
      { field: named[1] ?? "symbol", issue: named.length === 0 ? "required" : "more than one identifier" },
    ]);
  }
  const kind = named[0]!;
  return { [kind]: ref[kind]! };
}
