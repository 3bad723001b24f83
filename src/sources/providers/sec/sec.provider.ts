import type { IngestCompany, IngestLoad, IngestRecord } from "../../../domain/ports/source.ingest";
import { columnOf, FINANCIAL_FIGURES, OPTIONAL_FINANCIAL_FIGURES } from "../../../domain/ports/source.types";
import type { ProviderHttp } from "../provider.http";
import {
  fetchWith,
  keptRecord,
  type IngestPlan,
  type IngestQuery,
  type IngestStoreView,
  type Provider,
} from "../provider.types";
import { companyQuartersFetcher, type SecQuarter } from "./sec.facts";
import { sicDivision, submissionsFetcher } from "./sec.submissions";
import { SEC_EXCHANGES, tickerLoads, tickersFetcher } from "./sec.tickers";

/** The SEC's fair-access limit: at most 10 requests a second, with a User-Agent naming the operator. */
export const SEC_PER_SECOND = 10;

/** What a run keeps: per CIK, the newest 10-K or 10-Q its financials were read up to. */
interface SecState {
  reports: Record<string, { accession: string; filed: string }>;
}

const FINANCIAL_COLUMNS = [
  "symbol",
  "period_end",
  "fiscal_year",
  "fiscal_quarter",
  "reported_date",
  "currency",
  ...FINANCIAL_FIGURES.map(columnOf),
  ...OPTIONAL_FINANCIAL_FIGURES.map(columnOf),
];

function financialRecord(symbol: string, q: SecQuarter, row: number): IngestRecord {
  const values: Record<string, unknown> = {
    symbol,
    period_end: q.periodEnd,
    fiscal_year: q.fiscalYear,
    fiscal_quarter: q.fiscalQuarter,
    reported_date: q.reportedDate,
    currency: "USD",
  };
  for (const f of FINANCIAL_FIGURES) values[columnOf(f)] = q.figures[f];
  for (const f of OPTIONAL_FINANCIAL_FIGURES) values[columnOf(f)] = q.figures[f] ?? null;
  return { row, values };
}

async function tickers(query: IngestQuery, http: ProviderHttp): Promise<IngestPlan> {
  const calls0 = http.requests;
  const all = await fetchWith(http, tickersFetcher, undefined);
  const symbols = query.symbols ? new Set(query.symbols.map((s) => s.toUpperCase())) : undefined;
  const loads = tickerLoads(all, symbols);
  const unlisted = all.filter((t) => !SEC_EXCHANGES[t.exchange]).length;
  const notes = [`${all.length} tickers, ${unlisted} of them OTC or on no exchange (left out)`];
  return { dataset: "tickers", calls: http.requests - calls0, loads, notes };
}

/**
 * Each company's profile (`submissions`) and, when it filed a 10-K or 10-Q after the one the last run read, its
 * quarterly financials (`companyfacts`): about two calls a company, one when nothing was filed since.
 */
async function companies(
  query: IngestQuery,
  http: ProviderHttp,
  state: string | undefined,
  listed: IngestCompany[],
): Promise<IngestPlan> {
  const calls0 = http.requests;
  const kept: SecState = { reports: keptRecord<{ accession: string; filed: string }>(state, "reports") };
  const notes: string[] = [];
  let chosen = listed;
  if (query.symbols) {
    const wanted = new Set(query.symbols.map((s) => s.toUpperCase()));
    chosen = listed.filter((c) => wanted.has(c.symbol.toUpperCase()));
    const lacking = [...wanted].filter((s) => !chosen.some((c) => c.symbol.toUpperCase() === s));
    if (lacking.length > 0) {
      notes.push(
        `${lacking.join(", ")}: not listed in the store with a CIK (npm run ingest -- sec tickers, or a cik column ` +
          "in npm run import -- securities)",
      );
    }
  }
  const profiles: IngestRecord[] = [];
  const financials: IngestRecord[] = [];
  const next: SecState = { reports: { ...kept.reports } };
  for (const company of chosen) {
    const sub = await fetchWith(http, submissionsFetcher, company.cik);
    const sector = sicDivision(sub.sic);
    profiles.push({
      row: profiles.length + 1,
      values: {
        symbol: company.symbol,
        exchange: company.exchange,
        currency: company.currency,
        type: company.type,
        name: company.name,
        sector: sector ?? "",
        industry: sub.sicDescription,
      },
    });
    const last = kept.reports[String(company.cik)];
    const report = sub.latestReport;
    if (!report) {
      notes.push(`${company.symbol}: no 10-K or 10-Q among the SEC's recent filings`);
      continue;
    }
    if (last && last.accession === report.accession && query.since === undefined) {
      notes.push(`${company.symbol}: no filing after ${report.form} ${report.accession} (${report.filed})`);
      continue;
    }
    const quarters = await fetchWith(http, companyQuartersFetcher, company.cik);
    const whole = quarters.filter((q) => q.missing.length === 0);
    const partial = quarters.length - whole.length;
    let wanted = whole;
    if (last && query.since === undefined) wanted = wanted.filter((q) => q.latestFiled > last.filed);
    if (query.since !== undefined) wanted = wanted.filter((q) => q.periodEnd >= query.since!);
    for (const q of wanted) financials.push(financialRecord(company.symbol, q, financials.length + 1));
    const missing = [...new Set(quarters.flatMap((q) => q.missing))];
    notes.push(
      `${company.symbol}: ${quarters.length} quarters in the facts, ${wanted.length} to write` +
        (partial > 0 ? `; ${partial} left out for want of a figure (${missing.join(", ")})` : ""),
    );
    next.reports[String(company.cik)] = { accession: report.accession, filed: report.filed };
  }
  if (chosen.length === 0) notes.push("no company to fetch: the store lists none with a CIK");
  const calls = http.requests - calls0;
  notes.push(
    `${chosen.length} compan${chosen.length === 1 ? "y" : "ies"}, ${calls} calls; at ${SEC_PER_SECOND} a second ` +
      `and two calls a company, 500 companies take about ${Math.ceil((500 * 2) / SEC_PER_SECOND)} s`,
  );
  const loads: IngestLoad[] = [
    {
      kind: "securities",
      name: "submissions (profiles)",
      columns: ["symbol", "exchange", "currency", "type", "name", "sector", "industry"],
      records: profiles,
      count: profiles.length,
    },
    {
      kind: "financials",
      name: "companyfacts (quarters)",
      columns: FINANCIAL_COLUMNS,
      records: financials,
      count: financials.length,
    },
  ];
  return { dataset: "companies", calls, loads, nextState: JSON.stringify(next), notes };
}

/**
 * SEC EDGAR (keyless; the SEC requires a `User-Agent` naming the operator, MDG_SEC_USER_AGENT). Datasets:
 * `tickers`, `company_tickers_exchange.json`, the tickers of SEC registrants with their CIK and exchange (one
 * call); `companies`, the profile and quarterly financials of the companies the store lists with a CIK. Without a
 * dataset: `companies` when the store lists a company with a CIK, else `tickers`.
 */
export const secProvider: Provider = {
  name: "sec",
  datasets: ["tickers", "companies"],
  async fetch(query: IngestQuery, http: ProviderHttp, state: string | undefined, store: IngestStoreView) {
    if (query.dataset === "tickers") return tickers(query, http);
    const listed = await store.companies();
    if (query.dataset === undefined && listed.length === 0) return tickers(query, http);
    return companies(query, http, state, listed);
  },
};
