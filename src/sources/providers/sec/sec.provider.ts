import type { IngestCompany, IngestLoad, IngestRecord } from "../../../domain/ports/source.ingest";
import { columnOf, FINANCIAL_FIGURES, OPTIONAL_FINANCIAL_FIGURES } from "../../../domain/ports/source.types";
import { mapLimited } from "../../../platform/concurrency";
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

/** The columns of the profiles a run writes (the securities import kind's). */
export const PROFILE_COLUMNS = ["symbol", "exchange", "currency", "type", "name", "sector", "industry"];

/** The columns of the quarters a run writes (the financials import kind's, the optional figures included). */
export const FINANCIAL_COLUMNS = [
  "symbol",
  "period_end",
  "fiscal_year",
  "fiscal_quarter",
  "reported_date",
  "currency",
  ...FINANCIAL_FIGURES.map(columnOf),
  ...OPTIONAL_FINANCIAL_FIGURES.map(columnOf),
];

/** A quarter in the financials import kind's columns (FINANCIAL_COLUMNS), but for the symbol. */
export function quarterValues(q: SecQuarter): Record<string, unknown> {
  const values: Record<string, unknown> = {
    period_end: q.periodEnd,
    fiscal_year: q.fiscalYear,
    fiscal_quarter: q.fiscalQuarter,
    reported_date: q.reportedDate,
    currency: "USD",
  };
  for (const f of FINANCIAL_FIGURES) values[columnOf(f)] = q.figures[f];
  for (const f of OPTIONAL_FINANCIAL_FIGURES) values[columnOf(f)] = q.figures[f] ?? null;
  return values;
}

function financialRecord(symbol: string, q: SecQuarter, row: number): IngestRecord {
  return { row, values: { symbol, ...quarterValues(q) } };
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

/** Companies read at a time: their calls overlap (a company's two, and the next company's while one is read). */
const SEC_COMPANIES_AT_ONCE = 4;

interface CompanyRead {
  profile: Record<string, unknown>;
  quarters: SecQuarter[];
  notes: string[];
  report?: { accession: string; filed: string };
}

/** A call whose failure is read later, or never: a rejection nobody awaits yet is not an unhandled one. */
function settled<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return p.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/**
 * One company: its profile (`submissions`) and, when it filed a 10-K or 10-Q after the one the last run read, the
 * quarters to write (`companyfacts`). A company no run has read yet, or one --since rewrites, needs its facts
 * whatever its latest report is, so both calls go at once.
 */
async function readCompany(
  company: IngestCompany,
  last: { accession: string; filed: string } | undefined,
  query: IngestQuery,
  http: ProviderHttp,
): Promise<CompanyRead> {
  const early =
    !last || query.since !== undefined ? settled(fetchWith(http, companyQuartersFetcher, company.cik)) : undefined;
  let sub;
  try {
    sub = await fetchWith(http, submissionsFetcher, company.cik);
  } catch (e) {
    await early;
    throw e;
  }
  const profile = {
    symbol: company.symbol,
    exchange: company.exchange,
    currency: company.currency,
    type: company.type,
    name: company.name,
    sector: sicDivision(sub.sic) ?? "",
    industry: sub.sicDescription,
  };
  const report = sub.latestReport;
  if (!report) {
    // Facts asked at once are not needed (a company without XBRL facts answers 404 there).
    await early;
    return { profile, quarters: [], notes: [`${company.symbol}: no 10-K or 10-Q among the SEC's recent filings`] };
  }
  if (last && last.accession === report.accession && query.since === undefined) {
    const note = `${company.symbol}: no filing after ${report.form} ${report.accession} (${report.filed})`;
    return { profile, quarters: [], notes: [note] };
  }
  let quarters: SecQuarter[];
  if (early) {
    const got = await early;
    if (!got.ok) throw got.error;
    quarters = got.value;
  } else {
    quarters = await fetchWith(http, companyQuartersFetcher, company.cik);
  }
  const whole = quarters.filter((q) => q.missing.length === 0);
  const partial = quarters.length - whole.length;
  let wanted = whole;
  if (last && query.since === undefined) wanted = wanted.filter((q) => q.latestFiled > last.filed);
  if (query.since !== undefined) wanted = wanted.filter((q) => q.periodEnd >= query.since!);
  const missing = [...new Set(quarters.flatMap((q) => q.missing))];
  const note =
    `${company.symbol}: ${quarters.length} quarters in the facts, ${wanted.length} to write` +
    (partial > 0 ? `; ${partial} left out for want of a figure (${missing.join(", ")})` : "");
  return { profile, quarters: wanted, notes: [note], report: { accession: report.accession, filed: report.filed } };
}

/**
 * The named symbols the store lacks, listed from the SEC's tickers file (one call) with their CIKs, so that
 * `--symbols` fetches a company in one run. A symbol the store lists without a CIK is a security of the store's own,
 * which a symbol alone does not show to be the SEC registrant's: it is named, and left as it is.
 */
async function listFromTickers(
  lacking: readonly string[],
  http: ProviderHttp,
  store: IngestStoreView,
): Promise<{ added: IngestCompany[]; loads: IngestLoad[]; notes: string[] }> {
  const notes: string[] = [];
  const unlisted: string[] = [];
  const withoutCik: string[] = [];
  for (const symbol of lacking) ((await store.isListed(symbol)) ? withoutCik : unlisted).push(symbol);
  if (withoutCik.length > 0) {
    notes.push(
      `${withoutCik.join(", ")}: listed in the store without a CIK, left out (give it one with a cik column in ` +
        "npm run import -- securities)",
    );
  }
  if (unlisted.length === 0) return { added: [], loads: [], notes };
  const wanted = new Set(unlisted);
  const all = await fetchWith(http, tickersFetcher, undefined);
  const found = all.filter((t) => SEC_EXCHANGES[t.exchange] && wanted.has(t.ticker.toUpperCase()));
  const unknown = unlisted.filter((s) => !found.some((t) => t.ticker.toUpperCase() === s));
  if (unknown.length > 0) notes.push(`${unknown.join(", ")}: not among the SEC's tickers on Nasdaq, NYSE or Cboe`);
  if (found.length === 0) return { added: [], loads: [], notes };
  const added = found.map((t): IngestCompany => ({
    cik: t.cik,
    symbol: t.ticker,
    exchange: SEC_EXCHANGES[t.exchange]!.code,
    currency: "USD",
    type: "stock",
    name: t.name,
  }));
  notes.push(`${added.map((c) => c.symbol).join(", ")}: listed from the SEC's tickers, with their CIKs`);
  return { added, loads: tickerLoads(all, new Set(added.map((c) => c.symbol))), notes };
}

/**
 * The profile and quarters of each company (readCompany), a few companies at a time under the SEC's rate: about
 * two calls a company, one when nothing was filed since. Named companies the store lacks are listed first
 * (listFromTickers).
 */
async function companies(
  query: IngestQuery,
  http: ProviderHttp,
  state: string | undefined,
  listed: IngestCompany[],
  store: IngestStoreView,
): Promise<IngestPlan> {
  const calls0 = http.requests;
  const kept: SecState = { reports: keptRecord<{ accession: string; filed: string }>(state, "reports") };
  const notes: string[] = [];
  let chosen = listed;
  const listings: IngestLoad[] = [];
  if (query.symbols) {
    const wanted = new Set(query.symbols.map((s) => s.toUpperCase()));
    chosen = listed.filter((c) => wanted.has(c.symbol.toUpperCase()));
    const lacking = [...wanted].filter((s) => !chosen.some((c) => c.symbol.toUpperCase() === s));
    if (lacking.length > 0) {
      const more = await listFromTickers(lacking, http, store);
      chosen = [...chosen, ...more.added];
      listings.push(...more.loads);
      notes.push(...more.notes);
    }
  }
  const reads = await mapLimited(chosen, SEC_COMPANIES_AT_ONCE, (c) =>
    readCompany(c, kept.reports[String(c.cik)], query, http),
  );
  const profiles: IngestRecord[] = [];
  const financials: IngestRecord[] = [];
  const next: SecState = { reports: { ...kept.reports } };
  reads.forEach((read, i) => {
    const company = chosen[i]!;
    profiles.push({ row: profiles.length + 1, values: read.profile });
    for (const q of read.quarters) financials.push(financialRecord(company.symbol, q, financials.length + 1));
    notes.push(...read.notes);
    if (read.report) next.reports[String(company.cik)] = read.report;
  });
  if (chosen.length === 0) notes.push("no company to fetch: the store lists none with a CIK");
  const calls = http.requests - calls0;
  notes.push(
    `${chosen.length} compan${chosen.length === 1 ? "y" : "ies"}, ${calls} calls; at ${SEC_PER_SECOND} a second ` +
      `and two calls a company, 500 companies take about ${Math.ceil((500 * 2) / SEC_PER_SECOND)} s`,
  );
  const loads: IngestLoad[] = [
    ...listings,
    {
      kind: "securities",
      name: "submissions (profiles)",
      columns: PROFILE_COLUMNS,
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
 * call); `companies`, the profile and quarterly financials of the companies the store lists with a CIK, or of those
 * `--symbols` names (listed first where the store lacks them). Without a dataset: `companies` when the store lists a
 * company with a CIK or `--symbols` names any, else `tickers`.
 */
export const secProvider: Provider = {
  name: "sec",
  datasets: ["tickers", "companies"],
  async fetch(query: IngestQuery, http: ProviderHttp, state: string | undefined, store: IngestStoreView) {
    if (query.dataset === "tickers") return tickers(query, http);
    const listed = await store.companies();
    if (query.dataset === undefined && listed.length === 0 && !query.symbols) return tickers(query, http);
    return companies(query, http, state, listed, store);
  },
};
