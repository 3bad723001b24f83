import { setImmediate as turn } from "node:timers/promises";
import { ProviderFormatError } from "../provider.types";

/** One day of the ECB's euro reference rates: units of each currency for one euro, as the ECB writes them. */
export interface EcbDay {
  day: string;
  /** Where the day stands in the file (its CSV line, or the XML line of its `Cube time`). */
  row: number;
  /** The published text by currency ("1.0163"); a currency without a rate that day is absent. */
  rates: Record<string, string>;
}

/** A file of reference rates: every currency it has a column or a rate for (in its order), days oldest first. */
export interface EcbTable {
  currencies: string[];
  days: EcbDay[];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** Lines of the history read on one turn of the event loop: its 7,000 days took 300 ms or more in one piece. */
const LINES_PER_TURN = 500;
const CODE = /^[A-Z]{3}$/;

/**
 * `eurofxref-hist.csv`: `Date,USD,JPY,…,` (a trailing comma on every line), newest day first, `N/A` for no rate.
 * A value other than `N/A` is kept as written, for the import to judge.
 */
export async function parseHistCsv(text: string): Promise<EcbTable> {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const header = (lines[0] ?? "").split(",").map((c) => c.trim());
  while (header.length > 0 && header[header.length - 1] === "") header.pop();
  if (header[0] !== "Date" || !header.includes("USD")) {
    throw new ProviderFormatError("expected the ECB's rates CSV (a header Date,USD,…)");
  }
  const currencies = header.slice(1);
  const odd = currencies.filter((c) => !CODE.test(c));
  if (odd.length > 0)
    throw new ProviderFormatError(`the CSV header has columns that are no currency: ${odd.join(", ")}`);
  const days: EcbDay[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (i % LINES_PER_TURN === 0) await turn();
    const line = lines[i]!;
    if (line.trim() === "") continue;
    const cells = line.split(",");
    const day = cells[0]!.trim();
    if (!DAY.test(day))
      throw new ProviderFormatError(`line ${i + 1}: expected a day (YYYY-MM-DD), got ${day.slice(0, 20)}`);
    const rates: Record<string, string> = {};
    for (let j = 0; j < currencies.length; j++) {
      const cell = cells[j + 1];
      if (cell === undefined || cell === "N/A") continue;
      const v = cell.trim();
      if (v !== "" && v !== "N/A") rates[currencies[j]!] = v;
    }
    days.push({ day, row: i + 1, rates });
  }
  if (days.length === 0) throw new ProviderFormatError("the rates CSV has no day");
  days.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  return { currencies, days };
}

/**
 * `eurofxref-daily.xml` (and the 90-day file, the same shape with more days): `<Cube time='…'>` holding
 * `<Cube currency='USD' rate='1.0163'/>`. Read with patterns, since the format is fixed and small.
 */
export function parseRatesXml(text: string): EcbTable {
  const currencies: string[] = [];
  const days: EcbDay[] = [];
  // The rates inside a day are empty elements, so the day's own closing tag is the first one after it.
  const timeCube = /<Cube\s+time\s*=\s*["'](\d{4}-\d{2}-\d{2})["']\s*>([\s\S]*?)<\/Cube>/g;
  const rateCube = /<Cube\s+currency\s*=\s*["']([^"']*)["']\s+rate\s*=\s*["']([^"']*)["']\s*\/>/g;
  for (const m of text.matchAll(timeCube)) {
    const rates: Record<string, string> = {};
    for (const r of m[2]!.matchAll(rateCube)) {
      const code = r[1]!.trim();
      if (!CODE.test(code)) throw new ProviderFormatError(`${m[1]}: ${JSON.stringify(code)} is no currency code`);
      rates[code] = r[2]!.trim();
      if (!currencies.includes(code)) currencies.push(code);
    }
    const row = text.slice(0, m.index).split("\n").length;
    days.push({ day: m[1]!, row, rates });
  }
  if (days.length === 0 || days.every((d) => Object.keys(d.rates).length === 0)) {
    throw new ProviderFormatError("no <Cube time='…'> with rates: not the ECB's reference rates XML");
  }
  if (!currencies.includes("USD"))
    throw new ProviderFormatError("the rates have no USD, so no rate against the dollar");
  days.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  return { currencies, days };
}
