import type { IngestLoad, IngestRecord } from "../../../domain/ports/source.ingest";
import { ProviderFormatError, type ProviderFetcher } from "../provider.types";

/** One row of `company_tickers_exchange.json`: a ticker of an SEC registrant, and where it trades. */
export interface SecTicker {
  cik: number;
  name: string;
  ticker: string;
  /** `Nasdaq`, `NYSE`, `Cboe US`, `OTC`, or "" (none). */
  exchange: string;
}

/** The SEC's names of the US exchanges, as the markets (MICs) the store keys listings by, created when missing. */
export const SEC_EXCHANGES: Readonly<Record<string, { code: string; name: string }>> = {
  Nasdaq: { code: "XNAS", name: "Nasdaq" },
  NYSE: { code: "XNYS", name: "New York Stock Exchange" },
  "Cboe US": { code: "BATS", name: "Cboe BZX Exchange" },
};

/** `/files/company_tickers_exchange.json`: `{"fields":["cik","name","ticker","exchange"],"data":[[…],…]}`. */
export const tickersFetcher: ProviderFetcher<void, SecTicker[]> = {
  request: () => ({ path: "/files/company_tickers_exchange.json" }),
  transform(res) {
    let doc: { fields?: unknown; data?: unknown };
    try {
      doc = JSON.parse(res.body.toString("utf8")) as typeof doc;
    } catch {
      throw new ProviderFormatError("not JSON");
    }
    const fields = Array.isArray(doc?.fields) ? (doc.fields as unknown[]) : [];
    const at = (f: string) => fields.indexOf(f);
    if (!Array.isArray(doc?.data) || ["cik", "name", "ticker", "exchange"].some((f) => at(f) < 0)) {
      throw new ProviderFormatError('expected {"fields":["cik","name","ticker","exchange"],"data":[…]}');
    }
    return (doc.data as unknown[]).map((row, i) => {
      if (!Array.isArray(row)) throw new ProviderFormatError(`data[${i}] is not a row`);
      const cell = (f: string) => row[at(f)] as unknown;
      const text = (f: string) => (typeof cell(f) === "string" ? (cell(f) as string).trim() : "");
      return { cik: Number(cell("cik")), name: text("name"), ticker: text("ticker"), exchange: text("exchange") };
    });
  },
};

/**
 * The listings the tickers give: each ticker on Nasdaq, NYSE or Cboe becomes a stock listed there in US dollars,
 * with its CIK, where the store lacks the symbol (a symbol the store has keeps its security, type, name and CIK). The
 * file names no security type, so ETFs and trusts come as stocks too. OTC and unlisted tickers are left out.
 */
export function tickerLoads(tickers: readonly SecTicker[], symbols?: ReadonlySet<string>): IngestLoad[] {
  const listed = tickers.filter((t) => SEC_EXCHANGES[t.exchange] && (!symbols || symbols.has(t.ticker)));
  const used = [...new Set(listed.map((t) => t.exchange))];
  const exchanges: IngestRecord[] = used.map((e, i) => ({
    row: i + 1,
    values: {
      code: SEC_EXCHANGES[e]!.code,
      name: SEC_EXCHANGES[e]!.name,
      country: "US",
      currency: "USD",
      timezone: "America/New_York",
    },
  }));
  const securities: IngestRecord[] = [];
  tickers.forEach((t, i) => {
    if (!listed.includes(t)) return;
    securities.push({
      row: i + 1,
      values: {
        symbol: t.ticker,
        exchange: SEC_EXCHANGES[t.exchange]!.code,
        currency: "USD",
        type: "stock",
        name: t.name,
        country: "",
        cik: t.cik,
      },
    });
  });
  return [
    {
      kind: "exchanges",
      name: "company_tickers_exchange.json (exchanges)",
      columns: ["code", "name", "country", "currency", "timezone"],
      records: exchanges,
      count: exchanges.length,
      createOnly: true,
    },
    {
      kind: "securities",
      name: "company_tickers_exchange.json",
      columns: ["symbol", "exchange", "currency", "type", "name", "country", "cik"],
      records: securities,
      count: securities.length,
      createOnly: true,
    },
  ];
}
