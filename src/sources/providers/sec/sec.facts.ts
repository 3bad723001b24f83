import { FINANCIAL_FIGURES, OPTIONAL_FINANCIAL_FIGURES } from "../../../domain/ports/source.types";
import { runInWorker, workerFile } from "../../../platform/workers/worker.pool";
import { type JsonSelection, selectJson } from "../provider.json";
import { ProviderFormatError, type ProviderFetcher } from "../provider.types";
import {
  type ConceptRead,
  conceptsRead,
  coverConceptsRead,
  type FigureRead,
  type FinancialFigure,
  SEC_FIGURES,
  SPLIT_CONCEPT,
} from "./sec.concepts";

/** One fact of `companyfacts`: a value over a period (`start`..`end`) or at a day (`end`), and the filing it is in. */
export interface SecFact {
  start?: string;
  end: string;
  val: number;
  accn: string;
  fy?: number;
  fp?: string;
  form: string;
  filed: string;
}

/** A company's facts by taxonomy, concept and unit, as `/api/xbrl/companyfacts/CIK##########.json` gives them. */
export interface SecCompanyFacts {
  cik: number;
  entityName: string;
  facts: Record<string, Record<string, Record<string, SecFact[]>>>;
}

/** The 10-digit, zero-padded CIK of EDGAR's file names. */
export const cik10 = (cik: number) => String(cik).padStart(10, "0");

/**
 * A company's facts from the body of `/api/xbrl/companyfacts/CIK##########.json`; throws ProviderFormatError for a
 * body that is not such a document. Only the concepts the figures read (us-gaap, and dei for the cover page) are
 * checked and kept, and only they are parsed: a large filer's file holds some 500 concepts and tens of thousands of
 * facts, of which the figures read fewer than 40. The rest is checked as JSON and stepped over (selectJson), in about
 * half the time a whole parse takes (scripts/bench/sec-facts.probe.ts).
 */
export function parseCompanyFacts(body: Uint8Array): SecCompanyFacts {
  let doc: unknown;
  try {
    doc = selectJson(body, KEPT);
  } catch (e) {
    if (e instanceof SyntaxError) throw new ProviderFormatError("not JSON");
    throw e;
  }
  return companyFactsOf(doc);
}

/**
 * A company's facts from its `companyfacts` document as JSON.parse gives it, or as selectJson gives the members
 * read here; throws ProviderFormatError for what is not such a document.
 */
export function companyFactsOf(parsed: unknown): SecCompanyFacts {
  const doc = parsed as { cik?: unknown; entityName?: unknown; facts?: unknown } | null;
  if (!doc || typeof doc !== "object" || !doc.facts || typeof doc.facts !== "object") {
    throw new ProviderFormatError('expected {"cik":…,"entityName":…,"facts":{"us-gaap":{…}}}');
  }
  const facts: SecCompanyFacts["facts"] = { "us-gaap": {}, dei: {} };
  for (const [taxonomy, concepts] of [
    ["us-gaap", READ],
    ["dei", COVER],
  ] as const) {
    const all = (doc.facts as Record<string, unknown>)[taxonomy];
    if (all !== undefined && (all === null || typeof all !== "object")) {
      throw new ProviderFormatError(`expected {"facts":{"${taxonomy}":{…}}}`);
    }
    for (const concept of concepts) {
      const body = (all as Record<string, { units?: unknown } | undefined> | undefined)?.[concept];
      if (body === undefined) continue;
      const units = body?.units;
      if (!units || typeof units !== "object") throw new ProviderFormatError(`${taxonomy}:${concept} has no units`);
      const byUnit: Record<string, SecFact[]> = {};
      for (const [unit, list] of Object.entries(units as Record<string, unknown>)) {
        if (!Array.isArray(list)) throw new ProviderFormatError(`${taxonomy}:${concept} ${unit} is not a list`);
        byUnit[unit] = (list as Record<string, unknown>[]).map((f, i) => readFact(f, `${taxonomy}:${concept}[${i}]`));
      }
      facts[taxonomy]![concept] = byUnit;
    }
  }
  return { cik: Number(doc.cik), entityName: typeof doc.entityName === "string" ? doc.entityName : "", facts };
}

/** What the worker answers for one company's facts: its quarters, or why the body could not be read. */
export type CompanyQuartersAnswer = { ok: true; cik: number; quarters: SecQuarter[] } | { ok: false; format: string };

/**
 * A company's CIK and quarters from the body of its `companyfacts` document, read in a worker thread
 * (src/platform/workers/worker.pool.ts, at a lower priority); throws ProviderFormatError for a body that is not such a
 * document. Reading Apple's 3.5 MiB and deriving its quarters takes some 11 ms of CPU once the code is compiled, a
 * process's first company about five times that. Read on the event loop instead, on turns of it, the run held the
 * loop for 50 to 110 ms at a stretch (the parsed facts' garbage collected on the service's larger heap). The body is
 * handed over, not copied, when it has a memory of its own: the caller must not use it afterwards.
 */
export async function readCompanyQuarters(
  body: Uint8Array,
  label: string,
): Promise<{ cik: number; quarters: SecQuarter[] }> {
  const memory = body.buffer;
  // Not a slice of memory other buffers share (Node's pool for small ones), which handing over would take from them.
  const transfer: ArrayBuffer[] =
    memory instanceof ArrayBuffer && body.byteOffset === 0 && body.byteLength === memory.byteLength ? [memory] : [];
  const answer = await runInWorker<CompanyQuartersAnswer>(
    workerFile(__dirname, "sec.facts.worker"),
    { body },
    `sec-companyfacts-${label}-${process.hrtime.bigint()}`,
    transfer,
  );
  if (!answer.ok) throw new ProviderFormatError(answer.format);
  return answer;
}

/**
 * A company's quarters from `/api/xbrl/companyfacts/CIK##########.json` (readCompanyQuarters); a scheduled run reads
 * five companies a second (BENCHMARKS.md "Providers against the importer").
 */
export const companyQuartersFetcher: ProviderFetcher<number, SecQuarter[]> = {
  request: (cik) => ({ path: `/api/xbrl/companyfacts/CIK${cik10(cik)}.json`, host: "data" }),
  async transform(res, cik) {
    return (await readCompanyQuarters(res.body, String(cik))).quarters;
  },
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** The us-gaap concepts any figure reads, and the dei (cover page) ones. */
const READ = conceptsRead();
const COVER = coverConceptsRead();
/** What selectJson keeps of a company's facts: what companyFactsOf reads of them. */
const KEPT: JsonSelection = new Map<string, true | JsonSelection>([
  ["cik", true],
  ["entityName", true],
  [
    "facts",
    new Map([
      ["us-gaap", new Map(READ.map((c) => [c, true] as const))],
      ["dei", new Map(COVER.map((c) => [c, true] as const))],
    ]),
  ],
]);

function readFact(f: Record<string, unknown>, where: string): SecFact {
  const ok =
    f &&
    typeof f.end === "string" &&
    DAY.test(f.end) &&
    (f.start === undefined || (typeof f.start === "string" && DAY.test(f.start))) &&
    typeof f.val === "number" &&
    Number.isFinite(f.val) &&
    typeof f.accn === "string" &&
    typeof f.form === "string" &&
    typeof f.filed === "string";
  if (!ok) throw new ProviderFormatError(`${where}: expected {end, val, accn, form, filed} with days as YYYY-MM-DD`);
  return f as unknown as SecFact;
}

/** A quarter the facts give, with its figures; `latestFiled` is the newest filing any of its values come from. */
export interface SecQuarter {
  periodEnd: string;
  fiscalYear: number;
  fiscalQuarter: number;
  /** The filing date of the quarter's own report (its 10-Q, or for the fourth quarter the year's 10-K). */
  reportedDate: string;
  latestFiled: string;
  latestAccession: string;
  figures: Partial<Record<FinancialFigure, number>>;
  /** Figures of FINANCIAL_FIGURES the facts do not give for this quarter (an optional one is null instead). */
  missing: FinancialFigure[];
}

const DAY_MS = 86_400_000;
/**
 * Each day parsed once: a company's quarters compare the same few thousand days over and over, and Date.parse was a
 * quarter of the derivation's time. Emptied when full, so that a long-running service's stay small.
 */
const DAYS_KEPT = 100_000;
function keptByDay<T>(of: (day: string) => T): (day: string) => T {
  const kept = new Map<string, T>();
  return (day) => {
    let v = kept.get(day);
    if (v === undefined) {
      if (kept.size >= DAYS_KEPT) kept.clear();
      v = of(day);
      kept.set(day, v);
    }
    return v;
  };
}
const ms = keptByDay((day) => Date.parse(`${day}T00:00:00Z`));
const daysBetween = (a: string, b: string) => Math.round((ms(b) - ms(a)) / DAY_MS);
const dayAfter = keptByDay((day) => new Date(ms(day) + DAY_MS).toISOString().slice(0, 10));
/** How far apart the days a filer tags one split on may be. */
const SPLIT_TAGGED_WITHIN_DAYS = 183;
/** How long after a quarter's end its report's cover page may give shares outstanding as of. */
const COVER_DAYS = 120;
/** Fiscal calendars of 52 or 53 weeks end a few days apart from a month's end: periods match within this. */
const NEAR = 4;
const near = (a: string, b: string) => Math.abs(daysBetween(a, b)) <= NEAR;

/** Forms whose facts are read: annual and quarterly reports, amended or not. */
const REPORTS = /^10-[KQ](\/A)?$/;

/** A fact with the concept it came from, for the latest-filing rule across renamed concepts. */
interface Picked extends SecFact {
  rank: number;
}

/** One figure's facts by period (`start|end`), and the same facts, in that order, by end and by start. */
interface Series {
  byPeriod: Map<string, Picked>;
  byEnd: Map<string, Picked[]>;
  byStart: Map<string, Picked[]>;
}

/** Digits and hyphens only: filing days and accession numbers as the SEC writes them. */
const PLAIN = /^[0-9-]*$/;

/**
 * The order of two filing days or accession numbers, as localeCompare gives it. For digits and hyphens that is the
 * order of their characters' codes, which is some ten times quicker to get; anything else goes to localeCompare.
 */
function compareText(a: string, b: string): number {
  if (PLAIN.test(a) && PLAIN.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}

/**
 * One figure's series: the facts of all its concepts in reports, one per period (start and end, or end alone),
 * keeping of the facts for the same period the one of the latest filing (an amendment, a later report's restated
 * comparative), the earlier concept of the list on the same filing.
 */
function series(
  facts: SecCompanyFacts,
  concepts: readonly string[],
  unit: string,
  firstReported = false,
  adjust?: (f: SecFact) => number,
): Series {
  const byPeriod = new Map<string, Picked>();
  concepts.forEach((concept, rank) => {
    for (const f of facts.facts["us-gaap"]?.[concept]?.[unit] ?? []) {
      if (!REPORTS.test(f.form)) continue;
      const key = `${f.start ?? ""}|${f.end}`;
      const had = byPeriod.get(key);
      const order = had ? compareText(f.filed, had.filed) || compareText(f.accn, had.accn) : 0;
      const wins = !had || (firstReported ? order < 0 : order > 0) || (order === 0 && rank < had.rank);
      // Of one shape, unlike the facts JSON gives (with or without a start, a frame): copying those was most of
      // the derivation's time.
      if (wins) {
        byPeriod.set(key, {
          start: f.start,
          end: f.end,
          val: adjust ? adjust(f) : f.val,
          accn: f.accn,
          fy: f.fy,
          fp: f.fp,
          form: f.form,
          filed: f.filed,
          rank,
        });
      }
    }
  });
  const byEnd = new Map<string, Picked[]>();
  const byStart = new Map<string, Picked[]>();
  for (const f of byPeriod.values()) {
    const atEnd = byEnd.get(f.end);
    if (atEnd) atEnd.push(f);
    else byEnd.set(f.end, [f]);
    if (f.start === undefined) continue;
    const atStart = byStart.get(f.start);
    if (atStart) atStart.push(f);
    else byStart.set(f.start, [f]);
  }
  return { byPeriod, byEnd, byStart };
}

interface Period {
  start: string;
  end: string;
}

const isQuarter = (p: Period) => {
  const d = daysBetween(p.start, p.end);
  return d >= 80 && d <= 100;
};
const isYear = (p: Period) => {
  const d = daysBetween(p.start, p.end);
  return d >= 350 && d <= 380;
};

/** Decimal places of a number as JavaScript writes it (0.25: 2, 1e-7: 7). */
function decimalsOf(x: number): number {
  const text = String(x);
  const exp = text.indexOf("e-");
  const mantissa = exp < 0 ? text : text.slice(0, exp);
  const dot = mantissa.indexOf(".");
  return (dot < 0 ? 0 : mantissa.length - dot - 1) + (exp < 0 ? 0 : Number(text.slice(exp + 2)));
}

/**
 * A sum or difference of reported figures, to the most decimals any of them has: in binary floating point
 * 2.94 - 0.60 - 0.67 - 0.78 is 0.8899999999999999, where the quarter's figure is 0.89.
 */
function exactly(value: number, operands: readonly number[]): number {
  return roundTo(value, Math.max(0, ...operands.map(decimalsOf)));
}

/** `value` to `digits` decimals, at most 12. */
function roundTo(value: number, digits: number): number {
  const scale = 10 ** Math.min(12, digits);
  return Math.round(value * scale) / scale;
}

/** A flow's value over a period: reported for it, or a year-to-date figure less the one ending before it. */
function flowOver(s: Series, p: Period, used: Picked[]): number | undefined {
  const atEnd = s.byEnd.get(p.end);
  if (!atEnd) return undefined;
  for (const f of atEnd) {
    if (f.start !== undefined && near(f.start, p.start)) {
      used.push(f);
      return f.val;
    }
  }
  // Cash flows are reported year to date: the six months less the first three, and so on.
  for (const whole of atEnd) {
    if (whole.start === undefined || daysBetween(whole.start, p.start) <= NEAR) continue;
    for (const part of s.byStart.get(whole.start) ?? []) {
      if (near(dayAfter(part.end), p.start) && part.end < p.end) {
        used.push(whole, part);
        return exactly(whole.val - part.val, [whole.val, part.val]);
      }
    }
  }
  return undefined;
}

function balanceAt(s: Series, end: string, used: Picked[]): number | undefined {
  const f = s.byPeriod.get(`|${end}`);
  if (!f) return undefined;
  used.push(f);
  return f.val;
}

/** A fiscal year and its quarters' periods, the fourth being the year less its first three. */
interface FiscalYear extends Period {
  label: number;
  quarters: Period[];
}

/**
 * The company's quarters from its facts: each quarter its 10-Q reported, and each fourth quarter, derived as the
 * fiscal year (its 10-K) minus its three quarters, for flows; balances are read at the quarter's last day. Fiscal
 * years are labelled as the filer labels them (`fy` of the 10-K that first reported the year); quarters after the
 * last fiscal year count on from it.
 */
export function quartersOf(facts: SecCompanyFacts): SecQuarter[] {
  const splits = splitsOf(facts);
  /** How a figure's value filed on a day is brought to today's share basis, when a split came after that day. */
  const adjustFor = (r: ConceptRead): ((f: SecFact) => number) | undefined => {
    if (!r.splitAdjusted || splits.length === 0) return undefined;
    const perShare = r.splitAdjusted === "perShare";
    return (f) => {
      let ratio = 1;
      for (const s of splits) if (s.day > f.filed) ratio *= s.ratio;
      if (ratio === 1) return f.val;
      // To the digits the ratio adds: 5.98 / 10 is 0.598, not 0.5980000000000001.
      const digits = decimalsOf(f.val) + (perShare ? Math.max(0, Math.ceil(Math.log10(ratio))) : decimalsOf(ratio));
      return roundTo(perShare ? f.val / ratio : f.val * ratio, digits);
    };
  };
  const reads = new Map<string, Series[]>();
  /** A figure's series, as last restated; `firstReported`, as first reported (a per-share fourth quarter's check). */
  const read = (figure: FinancialFigure, firstReported = false) => {
    const key = firstReported ? `${figure}|first` : figure;
    let got = reads.get(key);
    if (!got) {
      const r = SEC_FIGURES[figure] as FigureRead;
      const adjust = "concepts" in r ? adjustFor(r) : undefined;
      got =
        "concepts" in r
          ? [r.concepts, ...(r.plus ?? [])].map((c) => series(facts, c, r.unit, firstReported, adjust))
          : [];
      if ("concepts" in r) for (const c of r.orSumOf ?? []) got.push(series(facts, [c], r.unit));
      reads.set(key, got);
    }
    return got;
  };
  const covers = new Map<string, Picked[]>();
  /** A cover page's figure (dei) for the quarter ending `end`: the one of the first report filed after it. */
  const coverAt = (r: ConceptRead, concept: string, end: string, used: Picked[]): number | undefined => {
    let list = covers.get(concept);
    if (!list) {
      list = (facts.facts.dei?.[concept]?.[r.unit] ?? [])
        .filter((f) => REPORTS.test(f.form))
        .map((f) => ({ ...f, rank: 0 }))
        .sort((a, b) => compareText(a.filed, b.filed) || compareText(a.accn, b.accn));
      covers.set(concept, list);
    }
    for (const f of list) {
      if (f.end > end && daysBetween(end, f.end) <= COVER_DAYS && f.filed >= f.end) {
        used.push(f);
        return adjustFor(r)?.(f) ?? f.val;
      }
    }
    return undefined;
  };
  // The periods: those of revenue, else of net income (every filer reports one of them each quarter).
  const anchorSeries = [...read("revenue")[0]!.byPeriod.values(), ...read("netIncome")[0]!.byPeriod.values()].filter(
    (f): f is Picked & { start: string } => f.start !== undefined,
  );
  const years = new Map<string, FiscalYear>();
  const firstAnnual = firstAnnualReports(facts);
  for (const f of anchorSeries) {
    if (!isYear(f) || years.has(f.end)) continue;
    years.set(f.end, { start: f.start, end: f.end, label: labelOf(firstAnnual, f), quarters: [] });
  }
  const quarterEnds = new Map<string, Period>();
  for (const f of anchorSeries) if (isQuarter(f) && !quarterEnds.has(f.end)) quarterEnds.set(f.end, f);
  const sortedYears = [...years.values()].sort((a, b) => (a.end < b.end ? -1 : 1));
  const periods: { period: Period; year: number; quarter: number; fourthOf?: FiscalYear }[] = [];
  for (const y of sortedYears) {
    const inside = [...quarterEnds.values()]
      .filter((q) => q.end < y.end && q.start >= y.start && daysBetween(q.end, y.end) > NEAR)
      .sort((a, b) => (a.end < b.end ? -1 : 1));
    if (inside.length !== 3) continue;
    y.quarters = inside;
    inside.forEach((q, i) => periods.push({ period: q, year: y.label, quarter: i + 1 }));
    periods.push({ period: { start: dayAfter(inside[2]!.end), end: y.end }, year: y.label, quarter: 4, fourthOf: y });
  }
  // Quarters of a fiscal year whose 10-K is not out yet.
  const last = sortedYears[sortedYears.length - 1];
  if (last) {
    const after = [...quarterEnds.values()].filter((q) => q.start > last.end).sort((a, b) => (a.end < b.end ? -1 : 1));
    after.forEach((q) => {
      const n = Math.round(daysBetween(last.end, q.end) / 91.3);
      if (n >= 1 && n <= 3) periods.push({ period: q, year: last.label + 1, quarter: n });
    });
  }

  const firstFiled = new Map<string, string>();
  for (const concept of (SEC_FIGURES.revenue.concepts as readonly string[]).concat(SEC_FIGURES.netIncome.concepts)) {
    for (const f of facts.facts["us-gaap"]?.[concept]?.USD ?? []) {
      if (!REPORTS.test(f.form)) continue;
      const had = firstFiled.get(f.end);
      if (!had || f.filed < had) firstFiled.set(f.end, f.filed);
    }
  }

  const out: SecQuarter[] = [];
  for (const { period, year, quarter, fourthOf } of periods) {
    const used: Picked[] = [];
    const figures: Partial<Record<FinancialFigure, number>> = {};
    const missing: FinancialFigure[] = [];
    for (const figure of [...FINANCIAL_FIGURES, ...OPTIONAL_FINANCIAL_FIGURES]) {
      const r = SEC_FIGURES[figure] as FigureRead;
      let v: number | undefined;
      if ("derived" in r) {
        v = r.derived(figures as Record<string, number>);
      } else if ("concepts" in r) {
        if (fourthOf && r.splitAdjusted === "perShare") {
          v = perShareFourth(read(figure), read(figure, true), fourthOf, used, {
            quarter: figures.netIncome,
            year: flowOver(read("netIncome")[0]!, fourthOf, []),
          });
        } else {
          v = valueOf(r, read(figure), { period, fourthOf, used });
        }
        if (v === undefined && r.orCover && r.read === "balance") v = coverAt(r, r.orCover, period.end, used);
        if (v === undefined && r.noneWhenNotReported && !paidOver(read(figure), period)) v = 0;
        // 0 × -1 is -0, which a store keeps: a quarter without dividends would read as -0.
        if (v !== undefined && v !== 0) v *= r.sign ?? 1;
      }
      if (v !== undefined) figures[figure] = v;
    }
    // Read after every reported figure, since what one is derived from may come after it in the store's order.
    for (const figure of [...FINANCIAL_FIGURES, ...OPTIONAL_FINANCIAL_FIGURES]) {
      const r = SEC_FIGURES[figure] as FigureRead;
      if (figures[figure] === undefined && "orDerived" in r && r.orDerived) {
        const v = r.orDerived(figures as Record<string, number>);
        if (v !== undefined) figures[figure] = v;
      }
      if (figures[figure] === undefined && (FINANCIAL_FIGURES as readonly string[]).includes(figure)) {
        missing.push(figure);
      }
    }
    let latest = used.reduce<Picked | undefined>((a, f) => (!a || f.filed > a.filed ? f : a), undefined);
    // A split changes what a quarter before it holds (its EPS and shares on the new basis): the quarter counts as
    // filed again by the first report that tagged the split, so that a later run rewrites it.
    for (const s of splits) {
      if (s.first.filed > (latest?.filed ?? "") && used.some((f) => f.filed < s.day)) latest = s.first;
    }
    out.push({
      periodEnd: period.end,
      fiscalYear: year,
      fiscalQuarter: quarter,
      reportedDate: firstFiled.get(period.end) ?? latest?.filed ?? period.end,
      latestFiled: latest?.filed ?? "",
      latestAccession: latest?.accn ?? "",
      figures,
      missing,
    });
  }
  return out.sort((a, b) => (a.periodEnd < b.periodEnd ? -1 : 1));
}

interface ValueAt {
  period: Period;
  /** The year of a fourth quarter, derived as the year less its first three. */
  fourthOf: FiscalYear | undefined;
  /** The facts the value comes from, for the quarter's latest filing. */
  used: Picked[];
}

/** A flow over the fiscal year less its flows over `parts` (its three quarters, or its nine months), and the year's. */
function yearLess(
  s: Series,
  year: FiscalYear,
  parts: readonly Period[],
  used: Picked[],
): { value: number; whole: number } | undefined {
  const whole = flowOver(s, year, used);
  const less = parts.map((p) => flowOver(s, p, used));
  if (whole === undefined || less.some((p) => p === undefined)) return undefined;
  const value = exactly(
    less.reduce<number>((sum, p) => sum - p!, whole),
    [whole, ...(less as number[])],
  );
  return { value, whole };
}

function valueOf(r: ConceptRead, all: Series[], at: ValueAt): number | undefined {
  const { period, fourthOf, used } = at;
  const one = (s: Series): number | undefined => {
    if (r.read === "balance") return balanceAt(s, period.end, used);
    if (fourthOf) return yearLess(s, fourthOf, fourthOf.quarters, used)?.value;
    return flowOver(s, period, used);
  };
  const plusCount = r.plus?.length ?? 0;
  const [main, ...rest] = all;
  const plus = rest.slice(0, plusCount);
  let first = one(main!);
  if (first === undefined && r.orSumOf) {
    const parts = rest.slice(plusCount).map(one);
    if (parts.some((p) => p !== undefined)) first = parts.reduce<number>((sum, p) => sum + (p ?? 0), 0);
  }
  if (first === undefined) return undefined;
  return plus.reduce<number>((sum, s) => sum + (one(s) ?? 0), first);
}

/**
 * A per-share figure's fourth quarter, on one share basis. Every value is brought to today's basis by the splits the
 * filer tagged (splitsOf), but a filer may tag none: NVIDIA's fiscal 2025 is 2.94 a share after its ten-for-one
 * split, its first quarter 5.98 in the 10-Q before it, and without the split's ratio the year less its quarters
 * comes out at -4.49. So the candidates are the year less its three quarters as last restated (a later report
 * restates its comparatives on the new basis), then as first reported, then the year less its nine months (the
 * third 10-Q's year to date) in the same two ways. The first that agrees with net income is taken: the quarter's net
 * income at the year's earnings a share per dollar earned, within a tenth (weighted share counts move within a year)
 * and two cents. None agreeing: undefined, the quarter left out rather than written wrong. Without the net incomes to
 * check against, the first candidate.
 */
function perShareFourth(
  restated: Series[],
  first: Series[],
  year: FiscalYear,
  used: Picked[],
  netIncome: { quarter: number | undefined; year: number | undefined },
): number | undefined {
  const nine: Period = { start: year.start, end: year.quarters[2]!.end };
  const { quarter, year: yearIncome } = netIncome;
  const checkable = quarter !== undefined && yearIncome !== undefined && yearIncome !== 0;
  for (const less of [year.quarters, [nine]]) {
    for (const s of [restated[0]!, first[0]!]) {
      const from: Picked[] = [];
      const got = yearLess(s, year, less, from);
      if (!got) continue;
      const expected = checkable ? (quarter * got.whole) / yearIncome : got.value;
      if (Math.abs(got.value - expected) > 0.1 * Math.abs(expected) + 0.02) continue;
      used.push(...from);
      return got.value;
    }
  }
  return undefined;
}

/** A split: the last day its filings tag it on (near its effective day), its ratio, and the first report of it. */
interface Split {
  day: string;
  ratio: number;
  first: Picked;
}

/**
 * The company's stock splits, from the ratio its reports tag (SPLIT_CONCEPT). A filer tags one split on several days
 * (the announcement and the effective day, or the month it fell in): facts of one ratio within half a year are one
 * split, dated by the last of them, so that a report filed after it counts as on the new basis, as its figures are.
 */
function splitsOf(facts: SecCompanyFacts): Split[] {
  const tagged = (facts.facts["us-gaap"]?.[SPLIT_CONCEPT]?.pure ?? [])
    .filter((f) => f.val > 0 && f.val !== 1 && REPORTS.test(f.form))
    .sort((a, b) => compareText(a.end, b.end));
  const out: Split[] = [];
  for (const f of tagged) {
    const last = out[out.length - 1];
    const picked = { ...f, rank: 0 };
    if (last && last.ratio === f.val && daysBetween(last.day, f.end) <= SPLIT_TAGGED_WITHIN_DAYS) {
      last.day = f.end;
      if (compareText(f.filed, last.first.filed) < 0) last.first = picked;
    } else {
      out.push({ day: f.end, ratio: f.val, first: picked });
    }
  }
  return out;
}

/**
 * Whether a fact of a figure other than 0 covers a day of the period (a year to date, a year, or the quarter
 * itself). For a payment, which is never negative, 0 over a year means 0 in each of its quarters.
 */
function paidOver(all: readonly Series[], p: Period): boolean {
  for (const s of all) {
    for (const f of s.byPeriod.values())
      if (f.val !== 0 && (f.start ?? f.end) <= p.end && f.end >= p.start) return true;
  }
  return false;
}

/** The fiscal year the filer gives a year's period: `fy` of the annual report that first reported it. */
function labelOf(firstAnnual: ReadonlyMap<string, SecFact>, year: Picked): number {
  return firstAnnual.get(`${year.start}|${year.end}`)?.fy ?? Number(year.end.slice(0, 4));
}

/** Of the revenue and net income facts a 10-K labels (`fp` FY, with an `fy`), the first filed, by period. */
function firstAnnualReports(facts: SecCompanyFacts): Map<string, SecFact> {
  const first = new Map<string, SecFact>();
  for (const concept of (SEC_FIGURES.revenue.concepts as readonly string[]).concat(SEC_FIGURES.netIncome.concepts)) {
    for (const f of facts.facts["us-gaap"]?.[concept]?.USD ?? []) {
      if (f.start === undefined || f.fp !== "FY" || f.fy === undefined) continue;
      const key = `${f.start}|${f.end}`;
      const had = first.get(key);
      if (!had || f.filed < had.filed) first.set(key, f);
    }
  }
  return first;
}
