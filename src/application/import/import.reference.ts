/**
 * The kinds that describe a security rather than price it: ETF and fund profiles, holdings, exposures, quarterly
 * financials, dividends and IPOs. Each row names its security by a listing's symbol (and optionally its exchange).
 */
import type {
  DividendImportRow,
  EtfProfileImportRow,
  ExposureImportRow,
  FinancialsImportRow,
  FundProfileImportRow,
  HoldingImportRow,
  ImportListing,
  IpoImportRow,
  ImportSink,
} from "../../domain/ports/source.import";
import type { IpoStatus, SecurityType } from "../../domain/ports/source.types";
import { type FilePlan, listingLookup, needColumns, noConflicts } from "./import.plan";
import {
  country,
  currency,
  cusip,
  day,
  finite,
  isin,
  majorCurrency,
  nonNegative,
  optionalDay,
  optionalNonNegative,
  required,
  requiredCountry,
  RowError,
  text,
  weight,
  whole,
} from "./import.validate";

export const ETF_PROFILE_COLUMNS = [
  "symbol",
  "issuer",
  "asset_class",
  "aum",
  "nav",
  "nav_currency",
  "expense_ratio",
  "inception_date",
  "domicile",
  "replication",
  "distribution_policy",
  "benchmark",
  "holdings_count",
  "holdings_date",
] as const;

export const FUND_PROFILE_COLUMNS = [
  "symbol",
  "fund_company",
  "category",
  "asset_class",
  "aum",
  "nav",
  "nav_currency",
  "ongoing_charge",
  "entry_charge",
  "inception_date",
  "domicile",
  "benchmark",
  "risk_class",
  "distribution_policy",
  "min_investment",
  "holdings_count",
  "holdings_date",
] as const;

/** Required; `holding_symbol`, `isin`, `cusip`, `sector`, `country`, and `shares` (ETF) or `asset_class` (fund) too. */
export const HOLDING_COLUMNS = ["symbol", "position", "name", "weight", "market_value"] as const;
export const EXPOSURE_COLUMNS = ["symbol", "exposure", "name", "weight"] as const;
export const FINANCIALS_NUMBERS = [
  "revenue",
  "cost_of_revenue",
  "gross_profit",
  "operating_income",
  "net_income",
  "eps",
  "total_assets",
  "total_liabilities",
  "total_equity",
  "cash",
  "total_debt",
  "shares_outstanding",
  "operating_cash_flow",
  "capex",
  "free_cash_flow",
  "dividends_paid",
] as const;
/** Optional: an empty cell or a missing column is null (the report has no such figure). */
export const FINANCIALS_OPTIONAL_NUMBERS = [
  "current_assets",
  "current_liabilities",
  "inventory",
  "accounts_receivable",
  "accounts_payable",
  "depreciation_amortization",
  "stock_based_compensation",
] as const;
export const FINANCIALS_COLUMNS = [
  "symbol",
  "period_end",
  "fiscal_year",
  "fiscal_quarter",
  "reported_date",
  "currency",
  ...FINANCIALS_NUMBERS,
] as const;
/** Required; `record_date`, `pay_date` and `declaration_date` are optional. */
export const DIVIDEND_COLUMNS = ["symbol", "ex_date", "amount", "currency", "frequency"] as const;

/** Payments per year the store knows. */
const FREQUENCIES = [1, 2, 4, 12];

const camel = (snake: string) => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The listing a row names, and the type of its security, asked of the store once per symbol. */
function holderLookup(sink: ImportSink) {
  const listing = listingLookup(sink);
  const types = new Map<number, SecurityType | null>();
  return async (values: Record<string, unknown>): Promise<{ listing: ImportListing; type: SecurityType | null }> => {
    const l = await listing(values);
    if (!types.has(l.securityId)) types.set(l.securityId, await sink.securityType(l.securityId));
    return { listing: l, type: types.get(l.securityId) ?? null };
  };
}

/** A holder of holdings or exposures (an ETF or a fund); a RowError for any other security. */
async function fundOf(
  lookup: ReturnType<typeof holderLookup>,
  values: Record<string, unknown>,
  only?: "etf" | "fund",
): Promise<{ id: number; holder: "etf" | "fund" }> {
  const { listing, type } = await lookup(values);
  if (type !== "etf" && type !== "fund") {
    throw new RowError(
      "symbol",
      values.symbol,
      `${listing.symbol} is a ${type ?? "missing"} security, not an ETF or fund`,
    );
  }
  if (only && type !== only) throw new RowError("symbol", values.symbol, `${listing.symbol} is not an ${only}`);
  return { id: listing.securityId, holder: type };
}

export function etfProfilesPlan(columns: readonly string[], sink: ImportSink): FilePlan<EtfProfileImportRow> {
  needColumns("etf-profiles", columns, ETF_PROFILE_COLUMNS);
  const lookup = holderLookup(sink);
  return {
    format: "etf-profiles (store columns)",
    async parse(v) {
      const { id } = await fundOf(lookup, v, "etf");
      return [
        {
          securityId: id,
          issuer: required(v, "issuer"),
          assetClass: required(v, "asset_class"),
          aum: nonNegative(v, "aum"),
          nav: nonNegative(v, "nav"),
          navCurrency: majorCurrency(v, "nav_currency"),
          expenseRatio: weight(v, "expense_ratio"),
          inceptionDate: day(v, "inception_date"),
          domicile: requiredCountry(v, "domicile"),
          replication: required(v, "replication"),
          distributionPolicy: required(v, "distribution_policy"),
          benchmark: required(v, "benchmark"),
          holdingsCount: whole(v, "holdings_count", 0, 1e9),
          holdingsDate: day(v, "holdings_date"),
        },
      ];
    },
    write: (rows) => sink.upsertEtfProfiles(rows).then(noConflicts),
  };
}

export function fundProfilesPlan(columns: readonly string[], sink: ImportSink): FilePlan<FundProfileImportRow> {
  needColumns("fund-profiles", columns, FUND_PROFILE_COLUMNS);
  const lookup = holderLookup(sink);
  return {
    format: "fund-profiles (store columns)",
    async parse(v) {
      const { id } = await fundOf(lookup, v, "fund");
      return [
        {
          securityId: id,
          fundCompany: required(v, "fund_company"),
          category: required(v, "category"),
          assetClass: required(v, "asset_class"),
          aum: nonNegative(v, "aum"),
          nav: nonNegative(v, "nav"),
          navCurrency: majorCurrency(v, "nav_currency"),
          ongoingCharge: weight(v, "ongoing_charge"),
          entryCharge: weight(v, "entry_charge"),
          inceptionDate: day(v, "inception_date"),
          domicile: requiredCountry(v, "domicile"),
          benchmark: required(v, "benchmark"),
          riskClass: whole(v, "risk_class", 1, 7),
          distributionPolicy: required(v, "distribution_policy"),
          minInvestment: nonNegative(v, "min_investment"),
          holdingsCount: whole(v, "holdings_count", 0, 1e9),
          holdingsDate: day(v, "holdings_date"),
        },
      ];
    },
    write: (rows) => sink.upsertFundProfiles(rows).then(noConflicts),
  };
}

export function holdingsPlan(columns: readonly string[], sink: ImportSink): FilePlan<HoldingImportRow> {
  needColumns("holdings", columns, HOLDING_COLUMNS);
  const lookup = holderLookup(sink);
  const held = new Map<string, number | null>();
  /** The held security, when the store lists it: by its symbol, else by its ISIN. */
  const heldId = async (symbol: string | null, isinCode: string | null): Promise<number | null> => {
    const key = `${symbol ?? ""}\u0000${isinCode ?? ""}`;
    if (!held.has(key)) {
      const bySymbol = symbol ? await sink.findListing(symbol) : null;
      held.set(key, bySymbol?.securityId ?? (isinCode ? await sink.securityOfIsin(isinCode) : null));
    }
    return held.get(key) ?? null;
  };
  return {
    format: "holdings (store columns)",
    async parse(v) {
      const { id, holder } = await fundOf(lookup, v);
      const symbol = text(v, "holding_symbol") || null;
      const isinCode = isin(v, "isin") ?? null;
      const row: HoldingImportRow = {
        holderId: id,
        holder,
        position: whole(v, "position", 1, 1e6),
        holdingSecurityId: null,
        symbol,
        name: required(v, "name"),
        isin: isinCode,
        cusip: cusip(v, "cusip") ?? null,
        assetClass: holder === "fund" ? required(v, "asset_class") : null,
        sector: text(v, "sector") || null,
        country: country(v, "country") ?? null,
        shares: holder === "etf" ? nonNegative(v, "shares") : optionalNonNegative(v, "shares"),
        weight: weight(v, "weight"),
        marketValue: nonNegative(v, "market_value"),
      };
      row.holdingSecurityId = await heldId(symbol, isinCode);
      return [row];
    },
    write: (rows) => sink.upsertHoldings(rows).then(noConflicts),
  };
}

export function exposuresPlan(columns: readonly string[], sink: ImportSink): FilePlan<ExposureImportRow> {
  needColumns("exposures", columns, EXPOSURE_COLUMNS);
  const lookup = holderLookup(sink);
  return {
    format: "exposures (store columns)",
    async parse(v) {
      const exposure = required(v, "exposure").toLowerCase();
      if (exposure !== "sector" && exposure !== "country" && exposure !== "allocation") {
        throw new RowError("exposure", v.exposure, "expected sector, country or allocation");
      }
      const { id, holder } = await fundOf(lookup, v);
      if (exposure === "allocation" && holder !== "fund") {
        throw new RowError("exposure", v.exposure, "an allocation (by asset class) is kept for funds only");
      }
      const name = exposure === "country" ? requiredCountry(v, "name") : required(v, "name");
      return [{ holderId: id, holder, exposure, name, weight: weight(v, "weight") }];
    },
    write: (rows) => sink.upsertExposures(rows).then(noConflicts),
  };
}

export function financialsPlan(columns: readonly string[], sink: ImportSink): FilePlan<FinancialsImportRow> {
  needColumns("financials", columns, FINANCIALS_COLUMNS);
  const lookup = holderLookup(sink);
  return {
    format: "financials (store columns)",
    async parse(v) {
      const { listing } = await lookup(v);
      const row: Record<string, unknown> = {
        securityId: listing.securityId,
        periodEnd: day(v, "period_end"),
        fiscalYear: whole(v, "fiscal_year", 1900, 2200),
        fiscalQuarter: whole(v, "fiscal_quarter", 1, 4),
        reportedDate: day(v, "reported_date"),
        currency: majorCurrency(v, "currency"),
      };
      for (const c of FINANCIALS_NUMBERS) row[camel(c)] = finite(v, c);
      for (const c of FINANCIALS_OPTIONAL_NUMBERS) row[camel(c)] = text(v, c) === "" ? null : finite(v, c);
      return [row as unknown as FinancialsImportRow];
    },
    write: (rows) => sink.upsertFinancials(rows).then(noConflicts),
  };
}

export function dividendsPlan(columns: readonly string[], sink: ImportSink): FilePlan<DividendImportRow> {
  needColumns("dividends", columns, DIVIDEND_COLUMNS);
  const lookup = holderLookup(sink);
  return {
    format: "dividends (store columns)",
    async parse(v) {
      const { listing } = await lookup(v);
      const frequency = finite(v, "frequency");
      if (!FREQUENCIES.includes(frequency)) {
        throw new RowError("frequency", v.frequency, `expected payments per year: ${FREQUENCIES.join(", ")}`);
      }
      // A dividend in pence or cents is kept in pounds or rand, as prices are.
      const unit = currency(v, "currency");
      return [
        {
          securityId: listing.securityId,
          exDate: day(v, "ex_date"),
          recordDate: optionalDay(v, "record_date"),
          payDate: optionalDay(v, "pay_date"),
          declarationDate: optionalDay(v, "declaration_date"),
          amount: nonNegative(v, "amount") / unit.per,
          currency: unit.currency,
          frequency,
        },
      ];
    },
    write: (rows) => sink.upsertDividends(rows).then(noConflicts),
  };
}

/** `exchange` names the listing the offering is on (the listing lookup reads it) and is stored as the exchange. */
export const IPO_COLUMNS = ["symbol", "exchange", "day", "status", "currency"] as const;

const IPO_STATUSES: readonly IpoStatus[] = ["expected", "priced", "withdrawn"];

export function iposPlan(columns: readonly string[], sink: ImportSink): FilePlan<IpoImportRow> {
  needColumns("ipos", columns, IPO_COLUMNS);
  const lookup = holderLookup(sink);
  return {
    format: "ipos (store columns)",
    async parse(v) {
      const { listing, type } = await lookup(v);
      if (type !== "stock") {
        throw new RowError("symbol", v.symbol, `${listing.symbol} is a ${type ?? "missing"} security, not a stock`);
      }
      const status = text(v, "status").toLowerCase() as IpoStatus;
      if (!IPO_STATUSES.includes(status)) {
        throw new RowError("status", v.status, `expected ${IPO_STATUSES.join(", ")}`);
      }
      // An offer price in pence or cents is kept in pounds or rand, as prices are.
      const unit = currency(v, "currency");
      const shares = optionalNonNegative(v, "shares_offered");
      const price = optionalNonNegative(v, "offer_price");
      // A priced offering says what was sold at what price; the others may not know yet (or any more).
      if (status === "priced") {
        if (shares === null) throw new RowError("shares_offered", "", "required for a priced offering");
        if (price === null) throw new RowError("offer_price", "", "required for a priced offering");
      }
      return [
        {
          securityId: listing.securityId,
          day: day(v, "day"),
          exchange: listing.exchange,
          sharesOffered: shares,
          offerPrice: price === null ? null : price / unit.per,
          currency: unit.currency,
          status,
        },
      ];
    },
    write: (rows) => sink.upsertIpos(rows).then(noConflicts),
  };
}
