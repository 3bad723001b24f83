import { z } from "zod";
import {
  cursorField,
  cusipField,
  dayField,
  isinField,
  limitField,
  securityCurrencyBody,
  securityRefBody,
  securityVariables,
  symbolField,
  wknField,
} from "../rest.body";
import {
  AnnualDividendsDocument,
  DividendCalendarDocument,
  DividendEstimateDocument,
} from "../rest.operations.generated";
import { example } from "../rest.examples";
import { optionalNullable, route, VERSIONS, type RouteEntry } from "../rest.route";
import { day, gqlObject } from "../rest.response";

/** docs/contract.md section 4: the dividend row (`date` is the ex-date). */
const dividendRow = {
  date: day,
  recordDate: day.nullable(),
  payDate: day.nullable(),
  declarationDate: day.nullable(),
  amount: z.number(),
  adjustedAmount: z.number(),
  currency: z.string(),
};

const calendarResponse = gqlObject("DividendCalendarPage", {
  from: day,
  to: day,
  dividends: z
    .array(gqlObject("Dividend", { symbol: z.string().nullable(), ...dividendRow }))
    .describe("Sorted by ex-date, then by security"),
  nextCursor: z.string().nullable(),
});

const annualResponse = gqlObject("AnnualDividends", {
  symbol: z.string(),
  isin: z.string().nullable(),
  currency: z.string(),
  frequency: z.int().nullable().describe("Payments per year (1, 2, 4, 12); null (none) for a non-payer"),
  years: z.array(
    gqlObject("DividendYear", {
      year: z.int(),
      amount: z.number(),
      adjustedAmount: z.number(),
      count: z.int().min(0),
      growth: z.number().nullable(),
      complete: z.boolean(),
    }),
  ),
  latestDividend: gqlObject("Dividend", dividendRow).nullable(),
  forwardAnnualDividend: z.number(),
  forwardYield: z.number().nullable(),
  price: z.number().nullable(),
  priceCurrency: z.string(),
});

/** The next twelve months: announced dividends as stored, then estimates (docs/api-stock-dividend.md). */
export const dividendEstimateResponse = gqlObject("DividendEstimate", {
  symbol: z.string(),
  isin: z.string().nullable(),
  currency: z.string(),
  frequency: z.int().nullable().describe("Payments per year the estimate assumes; null (none) for a non-payer"),
  from: day,
  to: day,
  total: z.number(),
  method: z.string(),
  dividends: z.array(gqlObject("ExpectedDividend", { ...dividendRow, status: z.enum(["announced", "estimated"]) })),
});

/** Every field optional: the calendar is called with no body at all (the body reader makes that `{}`). */
const calendarBody = z.object({
  from: optionalNullable(dayField),
  to: optionalNullable(dayField),
  symbol: optionalNullable(symbolField),
  isin: optionalNullable(isinField),
  cusip: optionalNullable(cusipField),
  wkn: optionalNullable(wknField),
  limit: optionalNullable(limitField),
  cursor: optionalNullable(cursorField),
});

const dividendRefBody = securityRefBody.transform(securityVariables);

export const DIVIDEND_ROUTES: readonly RouteEntry[] = [
  route({
    path: "calendar/dividends",
    summary: "Announced and upcoming dividends of stocks and ETFs by ex-date (no body: today to 90 days ahead)",
    versions: VERSIONS,
    scope: "dividend",
    body: calendarBody,
    operation: DividendCalendarDocument,
    shape: (d) => d.dividendCalendar,
    response: calendarResponse,
    maxAgeSeconds: 3_600,
    examples: (s) => ({
      upcoming: example("The next ten ex-dates", { limit: 10 }),
      etf: example("The first ETF's dividends of 2026", { symbol: s.etf, from: "2026-01-01", to: "2026-12-31" }),
    }),
    emptyAnswer: "an empty list",
    singleSecurity: false,
  }),
  route({
    path: "dividends/annual",
    summary:
      "Dividends per calendar year of a stock, ETF or fund (symbol or ISIN), with the forward dividend and yield",
    versions: VERSIONS,
    scope: "dividend",
    body: securityCurrencyBody,
    operation: AnnualDividendsDocument,
    shape: (d) => d.annualDividends,
    response: annualResponse,
    examples: (s) => ({
      stock: example("The first stock", { symbol: s.stock }),
      etf: example("The first ETF", { symbol: s.etf }),
    }),
    emptyExample: {
      summary: "A known security that pays no dividends",
      value: {
        symbol: "AMZN",
        isin: "US0231351067",
        currency: "USD",
        frequency: null,
        years: [],
        latestDividend: null,
        forwardAnnualDividend: 0,
        forwardYield: 0,
        price: 212.5,
        priceCurrency: "USD",
      },
    },
    emptyAnswer:
      "`years: []`, `latestDividend: null`, `frequency: null` (none), `forwardAnnualDividend: 0`, `forwardYield: " +
      "0` (null without a price)",
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
    response: dividendEstimateResponse,
    examples: (s) => ({ etf: example("The first ETF", { symbol: s.etf }) }),
    emptyAnswer:
      "`dividends: []`, `total: 0`, `frequency: null` (none), the window, a `method` saying nothing is estimated",
    singleSecurity: true,
  }),
];
