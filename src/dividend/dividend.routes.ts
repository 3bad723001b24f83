import { z } from "zod";
import { cursorField, dayField, isinField, limitField, securityRefBody, symbolField } from "../rest/rest.body";
import { AnnualDividendsDocument, DividendCalendarDocument, DividendEstimateDocument } from "../rest/rest.operations.generated";
import { optionalNullable, route, VERSIONS, type RouteEntry } from "../rest/rest.route";

/** Every field optional: the calendar is called with no body at all (the body reader makes that `{}`). */
const calendarBody = z.object({
  from: optionalNullable(dayField),
  to: optionalNullable(dayField),
  symbol: optionalNullable(symbolField),
  isin: optionalNullable(isinField),
  limit: optionalNullable(limitField),
  cursor: optionalNullable(cursorField),
});

const dividendRefBody = securityRefBody.transform((b) => ({ symbol: b.symbol ?? null, isin: b.isin ?? null }));

export const DIVIDEND_ROUTES: readonly RouteEntry[] = [
  route({
    path: "calendar/dividends",
    summary: "Announced and upcoming dividends of stocks and ETFs by ex-date (no body: today to 90 days ahead)",
    versions: VERSIONS,
    scope: "dividend",
    body: calendarBody,
    operation: DividendCalendarDocument,
    shape: (d) => d.dividendCalendar,
    singleSecurity: false,
  }),
  route({
    path: "dividends/annual",
    summary: "Dividends per calendar year of a stock, ETF or fund (symbol or ISIN), with the forward dividend and yield",
    versions: VERSIONS,
    scope: "dividend",
    body: dividendRefBody,
    operation: AnnualDividendsDocument,
    shape: (d) => d.annualDividends,
    singleSecurity: true,
  }),
  route({
    path: "etf/dividend-estimate",
    summary: "Expected dividends of the next twelve months of an ETF (stocks and funds are answered too)",
    versions: VERSIONS,
    scope: "dividend",
    body: dividendRefBody,
    operation: DividendEstimateDocument,
    shape: (d) => d.dividendEstimate,
    singleSecurity: true,
  }),
];
