import type { RequestContext } from "../request.context";
import type { SecurityRef } from "../instrument/instrument.service";
import { getAnnualDividends, getDividendCalendar, getDividendEstimate } from "./dividend.service";
import type { AnnualDividends, DividendCalendarArgs, DividendCalendarPage, DividendEstimate } from "./dividend.types";

/** Dividends across securities and of one security (the answer level: see etf/etf.answers.ts). */
export interface DividendAnswers {
  calendar(ctx: RequestContext, args: DividendCalendarArgs): Promise<DividendCalendarPage>;
  /** In the dividends' currency, or converted into `ref.currency`. */
  annual(ctx: RequestContext, ref: SecurityRef & { currency?: string | null }): Promise<AnnualDividends>;
  estimate(ctx: RequestContext, ref: SecurityRef): Promise<DividendEstimate>;
}

/** The answers computed by the domain services from a row store's rows. */
export const ROW_STORE_DIVIDEND_ANSWERS: DividendAnswers = Object.freeze({
  calendar: getDividendCalendar,
  annual: getAnnualDividends,
  estimate: getDividendEstimate,
});
