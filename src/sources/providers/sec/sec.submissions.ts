import { ProviderFormatError, type ProviderFetcher } from "../provider.types";
import { cik10 } from "./sec.facts";

/** What `/submissions/CIK##########.json` says of a company, and its latest periodic report. */
export interface SecSubmissions {
  cik: number;
  name: string;
  /** The Standard Industrial Classification code the SEC assigned ("3571"), "" when none. */
  sic: string;
  sicDescription: string;
  /** `MMDD` ("0926"), "" when none. */
  fiscalYearEnd: string;
  formerNames: { name: string; from: string; to: string }[];
  /** The newest 10-K or 10-Q (amended or not) among the recent filings. */
  latestReport?: { accession: string; form: string; filed: string };
}

export const submissionsFetcher: ProviderFetcher<number, SecSubmissions> = {
  request: (cik) => ({ path: `/submissions/CIK${cik10(cik)}.json`, host: "data" }),
  transform(res) {
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(res.body.toString("utf8")) as Record<string, unknown>;
    } catch {
      throw new ProviderFormatError("not JSON");
    }
    const recent = (doc?.filings as { recent?: Record<string, unknown> } | undefined)?.recent;
    const column = (name: string) => (Array.isArray(recent?.[name]) ? (recent[name] as unknown[]) : undefined);
    const accessions = column("accessionNumber");
    const forms = column("form");
    const filed = column("filingDate");
    if (typeof doc?.name !== "string" || !accessions || !forms || !filed) {
      throw new ProviderFormatError(
        'expected {"cik":…,"name":…,"filings":{"recent":{"accessionNumber":[…],"form":[…],"filingDate":[…]}}}',
      );
    }
    let latestReport: SecSubmissions["latestReport"];
    forms.forEach((form, i) => {
      const day = String(filed[i] ?? "");
      if (typeof form !== "string" || !/^10-[KQ](\/A)?$/.test(form)) return;
      if (!latestReport || day > latestReport.filed) {
        latestReport = { accession: String(accessions[i]), form, filed: day };
      }
    });
    const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
    const former = Array.isArray(doc.formerNames) ? (doc.formerNames as Record<string, unknown>[]) : [];
    return {
      cik: Number(doc.cik),
      name: doc.name.trim(),
      sic: text(doc.sic),
      sicDescription: text(doc.sicDescription),
      fiscalYearEnd: text(doc.fiscalYearEnd),
      formerNames: former.map((f) => ({
        name: text(f.name),
        from: text(f.from).slice(0, 10),
        to: text(f.to).slice(0, 10),
      })),
      latestReport,
    };
  },
};

/** The SIC's divisions, by the first two digits of a code (the SEC's own grouping of its industries). */
const SIC_DIVISIONS: readonly [number, number, string][] = [
  [1, 9, "Agriculture, Forestry and Fishing"],
  [10, 14, "Mining"],
  [15, 17, "Construction"],
  [20, 39, "Manufacturing"],
  [40, 49, "Transportation, Communications, Electric, Gas and Sanitary Services"],
  [50, 51, "Wholesale Trade"],
  [52, 59, "Retail Trade"],
  [60, 67, "Finance, Insurance and Real Estate"],
  [70, 89, "Services"],
  [91, 99, "Public Administration"],
];

/** The division of a SIC code ("3571" is Manufacturing), undefined for a code outside them. */
export function sicDivision(sic: string): string | undefined {
  if (!/^\d{4}$/.test(sic)) return undefined;
  const group = Number(sic.slice(0, 2));
  return SIC_DIVISIONS.find(([lo, hi]) => group >= lo && group <= hi)?.[2];
}
