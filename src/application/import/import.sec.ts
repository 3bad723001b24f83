/**
 * The SEC's company-facts document of one company, imported as financials: the quarters the reader derived from it
 * (import.readers.ts `secCompanyFacts`, as the SEC provider derives them), written for the company the store lists
 * with the document's CIK (`npm run ingest -- sec tickers`, or a cik column in `npm run import -- securities`).
 */
import type { FinancialsImportRow, ImportSink } from "../../domain/ports/source.import";
import { hasIngestCompanies } from "../../domain/ports/source.ingest";
import { FINANCIAL_COLUMNS } from "../../sources/providers/sec/sec.provider";
import { type FilePlan, ImportSetupError } from "./import.plan";
import { SEC_MISSING } from "./import.readers";
import { financialsPlan } from "./import.reference";
import { RowError } from "./import.validate";

/**
 * The symbols of the store's companies by CIK, read once an import run: each file of a run is planned with the run's
 * one options object, and an import of financials lists no company. A run of thousands of documents (the SEC's bulk
 * archive) would otherwise read every company once a file.
 */
const symbolsOfRun = new WeakMap<object, Promise<Map<number, string>>>();

export async function secFinancialsPlan(sink: ImportSink, run: object): Promise<FilePlan<FinancialsImportRow>> {
  if (!hasIngestCompanies(sink)) throw new ImportSetupError("this store cannot list its companies by CIK");
  let read = symbolsOfRun.get(run);
  if (!read) {
    read = sink.companiesWithCik().then((all) => new Map(all.map((c) => [c.cik, c.symbol])));
    symbolsOfRun.set(run, read);
  }
  const symbols = await read;
  const store = financialsPlan(FINANCIAL_COLUMNS, sink);
  const lacking = new Set<string>();
  let quarters = 0;
  let leftOut = 0;
  let cik: unknown;
  return {
    format: "SEC company facts (quarters derived as the SEC provider does)",
    skip(v) {
      quarters++;
      cik = v.cik;
      const figures = v[SEC_MISSING];
      if (typeof figures !== "string") return false;
      leftOut++;
      for (const figure of figures.split(", ")) lacking.add(figure);
      return true;
    },
    parse(v) {
      const symbol = symbols.get(Number(v.cik));
      if (symbol === undefined) {
        throw new RowError(
          "cik",
          v.cik,
          `no security in the store has CIK ${String(v.cik)} (npm run ingest -- sec tickers, or a cik column in ` +
            "npm run import -- securities)",
        );
      }
      return store.parse({ ...v, symbol });
    },
    write: (rows) => store.write(rows),
    notes() {
      // The provider's own note on the same document (sec.provider.ts `readCompany`).
      const name = symbols.get(Number(cik)) ?? `CIK ${String(cik)}`;
      return [
        `${name}: ${quarters} quarters in the facts, ${quarters - leftOut} to write` +
          (leftOut > 0 ? `; ${leftOut} left out for want of a figure (${[...lacking].join(", ")})` : ""),
      ];
    },
  };
}
