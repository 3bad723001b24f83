import type {
  AnnualDividends,
  DividendCalendarArgs,
  DividendCalendarPage,
  DividendEstimate,
} from "../../../domain/dividend/dividend.types";
import type { SecurityRef } from "../../../domain/instrument/instrument.service";
import { bodyOf, refBody, withCurrency } from "../upstream.calls";
import type { UpstreamFetcher } from "../upstream.fetcher";

export const dividendCalendarFetcher: UpstreamFetcher<
  DividendCalendarArgs,
  DividendCalendarPage,
  DividendCalendarPage
> = {
  path: "/v1/calendar/dividends",
  kind: "reference",
  request: (args) => bodyOf({ ...args }),
  transform: (d) => d,
};

export interface AnnualDividendsQuery {
  ref: SecurityRef;
  currency?: string | null;
}

export const annualDividendsFetcher: UpstreamFetcher<AnnualDividendsQuery, AnnualDividends, AnnualDividends> = {
  path: "/v1/dividends/annual",
  kind: "reference",
  request: ({ ref, currency }) => withCurrency(refBody(ref), currency),
  transform: (d) => d,
};

export const etfDividendEstimateFetcher: UpstreamFetcher<SecurityRef, DividendEstimate, DividendEstimate> = {
  path: "/v1/etf/dividend-estimate",
  kind: "reference",
  request: refBody,
  transform: (d) => d,
};
