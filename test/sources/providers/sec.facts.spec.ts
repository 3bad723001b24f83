import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ProviderFormatError } from "../../../src/sources/providers/provider.types";
import { closeWorkerPool } from "../../../src/platform/workers/worker.pool";
import { recordedFacts } from "../../helpers/providers";
import {
  companyFactsOf,
  companyQuartersFetcher,
  parseCompanyFacts,
  quartersOf,
} from "../../../src/sources/providers/sec/sec.facts";

const FIXTURE = readFileSync(
  join(__dirname, "..", "..", "fixtures", "providers", "sec", "CIK0000320193.companyfacts.json"),
);
/** Apple's whole file (503 concepts), where the bench keeps it (BENCHMARKS.md "Providers against the importer"). */
const WHOLE = join(__dirname, "..", "..", "..", "data", "bench", "CIK0000320193.companyfacts.json");

/** The quarters as read from the whole document parsed by JSON.parse, as the provider read them before. */
const fromWholeParse = (body: Buffer) => quartersOf(companyFactsOf(JSON.parse(body.toString("utf8"))));

interface Doc {
  cik: number;
  entityName: string;
  facts: Record<string, Record<string, { label: string; description: string; units: Record<string, unknown[]> }>>;
}

/**
 * The recorded facts with what a careless scanner would trip on, none of it in a concept the provider reads: a
 * taxonomy and concepts it does not read whose labels and descriptions hold quotes, braces, brackets, backslashes,
 * escapes and text that looks like the concepts it reads, before and after those; one concept it reads under a key
 * written with an escape; labels of concepts it reads holding the same; and space everywhere.
 */
function adversarial(): Buffer {
  const doc = JSON.parse(FIXTURE.toString("utf8")) as Doc;
  const decoy = (n: number) => ({
    label: `Decoy ${n} {"Revenues":{"units":{"USD":[{"end":"2020-01-01","val":1}]}}} ]]] \\ "`,
    description: "UNICODE_PLACEHOLDER",
    units: {
      USD: [
        { end: "2020-03-31", val: 1234567.5, accn: "0000000000-20-000001", form: "10-Q", filed: "2020-05-01" },
        { start: "2019-10-01", end: "2020-03-31", val: -2.5e-3, accn: '"}', form: "10-K", filed: "{" },
      ],
    },
  });
  const gaap: Doc["facts"][string] = {};
  gaap.AAADecoyBefore = decoy(1);
  for (const [name, concept] of Object.entries(doc.facts["us-gaap"]!)) {
    gaap[name] = { ...concept, label: `${concept.label} {"units": "\\"}"} [` };
    gaap[`${name}Decoy`] = decoy(2);
  }
  gaap.ZZZDecoyAfter = decoy(3);
  const tricky: Doc = {
    cik: doc.cik,
    entityName: 'Apple "Inc." {}',
    facts: {
      dei: { EntityPublicFloat: decoy(4), ...doc.facts.dei, EntityCommonStockSharesOutstandingDecoy: decoy(5) },
      "us-gaap": gaap,
      srt: { Revenues: decoy(5) },
    },
  };
  const text = JSON.stringify(tricky, null, 2)
    .replaceAll('"UNICODE_PLACEHOLDER"', '"\\u007b\\u0022Revenues\\u0022: [\\u005d \\ud83d\\ude00 \\/ \\t"')
    .replace('"GrossProfit":', '"Gross\\u0050rofit" :');
  return Buffer.from(text, "utf8");
}

describe("SEC company facts read by selection", () => {
  it("gives the recorded facts exactly as JSON.parse of the whole file, and the same quarters", () => {
    const facts = parseCompanyFacts(FIXTURE);
    expect(facts).toEqual(companyFactsOf(JSON.parse(FIXTURE.toString("utf8"))));
    expect(Object.keys(facts.facts["us-gaap"]!)).toHaveLength(32);
    const quarters = quartersOf(facts);
    expect(quarters.length).toBeGreaterThan(60);
    expect(quarters).toEqual(fromWholeParse(FIXTURE));
  });

  it("reads past quotes, braces and escapes in what it steps over, to the same quarters as the recorded file", () => {
    const body = adversarial();
    const text = body.toString("utf8");
    expect(text).toContain('"Gross\\u0050rofit" :');
    expect(text).toContain("\\u007b\\u0022Revenues\\u0022");
    expect((JSON.parse(text) as Doc).facts["us-gaap"]!.Assets!.label).toBe('Assets {"units": "\\"}"} [');
    const facts = parseCompanyFacts(body);
    expect(facts).toEqual(companyFactsOf(JSON.parse(body.toString("utf8"))));
    expect(facts.entityName).toBe('Apple "Inc." {}');
    expect(facts.facts["us-gaap"]!.GrossProfit).toEqual(parseCompanyFacts(FIXTURE).facts["us-gaap"]!.GrossProfit);
    expect(Object.keys(facts.facts["us-gaap"]!)).toHaveLength(32);
    const quarters = quartersOf(facts);
    expect(quarters).toEqual(fromWholeParse(body));
    expect(quarters).toEqual(quartersOf(parseCompanyFacts(FIXTURE)));
  });

  it("hands a body of its own memory to the worker rather than copying it, and reads the same quarters", async () => {
    const body = Buffer.alloc(FIXTURE.length);
    FIXTURE.copy(body);
    try {
      const quarters = await companyQuartersFetcher.transform({ status: 200, body, contentType: undefined }, 320193);
      expect(quarters).toEqual(quartersOf(parseCompanyFacts(FIXTURE)));
      // Moved: nothing of it is left here.
      expect(body.byteLength).toBe(0);
    } finally {
      await closeWorkerPool();
    }
  });

  // Apple's whole file (3.5 MiB) is not in the repository: the providers bench fetches it into data/bench
  // (BENCHMARKS.md, "Providers against the importer"). Without it this case is skipped and says so.
  (existsSync(WHOLE) ? it : it.skip)("gives the same quarters as JSON.parse of Apple's whole file (data/bench)", () => {
    const body = readFileSync(WHOLE);
    const quarters = quartersOf(parseCompanyFacts(body));
    expect(quarters).toEqual(fromWholeParse(body));
    expect(quarters.length).toBeGreaterThan(60);
  });

  it.each([
    ["cut short", (b: Buffer) => b.subarray(0, b.length - 2), "not JSON"],
    [
      "with a control character in a concept it does not read",
      (b: Buffer) => Buffer.from(b.toString("utf8").replace("Decoy 2", "Decoy\u00012")),
      "not JSON",
    ],
    [
      "with a number JSON has no form for, in a concept it does not read",
      (b: Buffer) => Buffer.from(b.toString("utf8").replace("1234567.5", "1234567.")),
      "not JSON",
    ],
    [
      "with facts that are not an object",
      () => Buffer.from('{"cik": 320193, "facts": "us-gaap"}'),
      'expected {"cik":…,"entityName":…,"facts":{"us-gaap":{…}}}',
    ],
    [
      "with a concept it reads that has no units",
      () => Buffer.from('{"facts": {"us-gaap": {"Assets": {"label": "Assets"}}}}'),
      "us-gaap:Assets has no units",
    ],
  ])("refuses a body %s, as it refused it parsed whole", (_name, change, message) => {
    const body = change(adversarial());
    expect(() => fromWholeParse(body)).toThrow();
    expect(() => parseCompanyFacts(body)).toThrow(new ProviderFormatError(message));
  });
});

describe("SEC company facts of a filer without gross profit or steady dividends (Alphabet, as recorded)", () => {
  const GOOG = readFileSync(
    join(__dirname, "..", "..", "fixtures", "providers", "sec", "CIK0001652044.companyfacts.json"),
  );
  const fact = recordedFacts(GOOG);
  const quarters = quartersOf(parseCompanyFacts(GOOG));
  const at = (end: string) => quarters.find((q) => q.periodEnd === end)!;

  it("derives gross profit as revenue less cost of revenue, which Alphabet reports without it", () => {
    const Q1_25 = "0001652044-25-000043";
    const q = at("2025-03-31");
    expect(q.missing).toEqual([]);
    expect(q.figures.revenue).toBe(fact("Revenues", "2025-01-01", "2025-03-31", "0001652044-26-000048"));
    expect(q.figures.grossProfit).toBe(
      fact("Revenues", "2025-01-01", "2025-03-31", "0001652044-26-000048") -
        fact("CostOfRevenue", "2025-01-01", "2025-03-31", Q1_25),
    );
    expect(q.figures.dividendsPaid).toBe(-fact("PaymentsOfDividends", "2025-01-01", "2025-03-31", Q1_25));
  });

  it("counts no dividends paid in a quarter that no dividends fact but 0 covers, and writes it", () => {
    // 2019 has no dividends fact; 2017 only its year's, of 0; 2024's first quarter a fact of 0 of its own.
    expect(() => fact("PaymentsOfDividends", "2019-01-01", "2019-06-30", "0001652044-19-000023")).toThrow();
    for (const end of ["2019-06-30", "2017-03-31", "2017-12-31", "2024-03-31"]) {
      expect(at(end)).toMatchObject({ missing: [], figures: expect.objectContaining({ dividendsPaid: 0 }) });
    }
    // 2015: 47 M over the half year to June, so its first quarter is not known to be 0, and is left out.
    expect(at("2015-03-31").missing).toContain("dividendsPaid");
    expect(quarters.filter((q) => q.missing.length === 0).length).toBe(38);
  });

  it("reads the trimmed copy to the same quarters as the file's every concept would give", () => {
    expect(fromWholeParse(GOOG)).toEqual(quarters);
  });
});
