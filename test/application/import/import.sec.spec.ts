import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { main as importMain } from "../../../src/application/cli/import.cli";
import { openIngestSink } from "../../../src/application/cli/ingest.cli";
import { EXIT_FAILURE, EXIT_REJECTED } from "../../../src/application/import/import.run";
import {
  type ProviderServer,
  secConfig,
  serve,
  startProviderServer,
  ingestCli,
  storeRows,
} from "../../helpers/providers";

/**
 * `npm run import -- financials` of the SEC's own company-facts files (test/fixtures/providers/sec/README.md says
 * where they were recorded): the quarters the SEC provider writes from the same documents, without a call.
 */
const FIXTURES = join(__dirname, "..", "..", "fixtures", "providers", "sec");
const fixture = (name: string) => join(FIXTURES, name);
const NVDA = "0001045810";
const MRVL = "0001835632";
const factsOf = (cik: string) => fixture(`CIK${cik}.companyfacts.json`);

let dir: string;
let server: ProviderServer;
/** A store listing NVIDIA and Marvell with their CIKs, as a team would list them: copied for each test. */
let listed: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-import-sec-"));
  const file = (name: string) => readFileSync(fixture(name));
  server = await startProviderServer({
    "/files/company_tickers_exchange.json": serve(file("company_tickers_exchange.json"), "application/json"),
    ...Object.fromEntries(
      [NVDA, MRVL].flatMap((cik) => [
        [`/submissions/CIK${cik}.json`, serve(file(`CIK${cik}.submissions.json`), "application/json")],
        [`/api/xbrl/companyfacts/CIK${cik}.json`, serve(file(`CIK${cik}.companyfacts.json`), "application/json")],
      ]),
    ),
  });
  listed = join(dir, "listed", "market.db");
  expect((await ingestCli(secConfig(server, listed), ["sec", "tickers", "--symbols", "NVDA"], report())).code).toBe(0);
  const csv = join(dir, "securities.csv");
  writeFileSync(csv, "symbol,exchange,currency,type,name,cik\nMRVL,XNAS,USD,stock,Marvell Technology Inc.,1835632\n");
  expect((await importCli(listed, ["securities", csv])).code).toBe(0);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

let stores = 0;
/** A fresh copy of `from` (the listed store by default). */
function copyOf(from = listed): string {
  const to = join(dir, `s${++stores}`, "market.db");
  mkdirSync(join(to, ".."), { recursive: true });
  copyFileSync(from, to);
  return to;
}

function report(): string {
  return join(dir, `report-${++stores}.csv`);
}

/** `npm run import -- <args>` in this process, into the SQLite store at `store`. */
async function importCli(
  store: string,
  args: string[],
): Promise<{ code: number; text: string; report: string; companyReads: number }> {
  const lines: string[] = [];
  const path = report();
  let companyReads = 0;
  const code = await importMain([...args, "--report", path], {
    async openSink() {
      const opened = await openIngestSink(secConfig(server, store));
      // The store's own sink, its reads of the companies listed by CIK counted.
      const sink = opened.sink as typeof opened.sink & { companiesWithCik(): Promise<unknown[]> };
      const read = sink.companiesWithCik.bind(sink);
      sink.companiesWithCik = () => (companyReads++, read());
      return opened;
    },
    out: { log: (l) => lines.push(l), error: (l) => lines.push(l) },
    tty: false,
  });
  return { code, text: lines.join("\n"), report: path, companyReads };
}

/** Every quarter of the store with its symbol, every column, in order. */
const quarters = (store: string) =>
  storeRows<Record<string, unknown>>(
    store,
    `SELECT l.symbol, f.* FROM quarterly_financials f
     JOIN listings l ON l.security_id = f.security_id AND l.is_primary = 1 ORDER BY l.symbol, f.period_end`,
  ).map(({ security_id: _id, ...row }) => row);

describe("npm run import -- financials <the SEC's company facts>", () => {
  it("writes the quarters the SEC provider writes from the same files, and a rerun changes nothing", async () => {
    const fetched = copyOf();
    expect((await ingestCli(secConfig(server, fetched), ["sec", "companies"], report())).code).toBe(0);
    const imported = copyOf();
    const run = await importCli(imported, ["financials", factsOf(NVDA), factsOf(MRVL)]);
    expect(run.code).toBe(0);
    // The companies are read once for the run, not once a file.
    expect(run.companyReads).toBe(1);
    const want = quarters(fetched);
    expect(want.length).toBeGreaterThan(50);
    expect(quarters(imported)).toEqual(want);
    const written = (symbol: string) => want.filter((q) => q.symbol === symbol).length;
    expect(run.text).toContain(`financials: ${want.length} inserted, 0 changed, 0 unchanged, 0 rejected`);
    // The provider's own note on each company, the quarters lacking a figure named as it names them.
    expect(run.text).toMatch(
      new RegExp(
        `CIK${NVDA}\\.companyfacts\\.json: NVDA: 65 quarters in the facts, ${written("NVDA")} to write; ` +
          `${65 - written("NVDA")} left out for want of a figure \\(.*totalDebt.*\\)`,
      ),
    );
    expect(run.text).toContain(`MRVL: 25 quarters in the facts, ${written("MRVL")} to write;`);

    const again = await importCli(imported, ["financials", factsOf(NVDA), factsOf(MRVL)]);
    expect(again.code).toBe(0);
    expect(again.text).toContain(`financials: 0 inserted, 0 changed, ${want.length} unchanged, 0 rejected`);
    expect(quarters(imported)).toEqual(want);
  });

  it("reads a gzip-compressed file, and one named with --format sec whatever its name", async () => {
    const gz = join(dir, "marvell.json.gz");
    writeFileSync(gz, gzipSync(readFileSync(factsOf(MRVL))));
    const named = join(dir, "marvell-facts.txt");
    copyFileSync(factsOf(MRVL), named);
    const fromGz = copyOf();
    expect((await importCli(fromGz, ["financials", gz])).code).toBe(0);
    const fromNamed = copyOf();
    expect((await importCli(fromNamed, ["financials", named, "--format", "sec"])).code).toBe(0);
    const plain = copyOf();
    expect((await importCli(plain, ["financials", factsOf(MRVL)])).code).toBe(0);
    expect(quarters(plain).length).toBeGreaterThan(20);
    expect(quarters(fromGz)).toEqual(quarters(plain));
    expect(quarters(fromNamed)).toEqual(quarters(plain));
  });

  it("rejects every quarter of a company the store does not list by its CIK, naming it; writes nothing", async () => {
    const store = copyOf();
    const alphabet = await importCli(store, ["financials", fixture("CIK0001652044.companyfacts.json")]);
    expect(alphabet.code).toBe(EXIT_REJECTED);
    expect(alphabet.text).toMatch(/financials: 0 inserted, 0 changed, 0 unchanged, [1-9]\d* rejected/);
    const rejections = readFileSync(alphabet.report, "utf8");
    expect(rejections).toContain("no security in the store has CIK 1652044");
    expect(quarters(store)).toEqual([]);
  });

  it("refuses a truncated document, a CSV as --format sec, company facts as another kind; writes nothing", async () => {
    const store = copyOf();
    const truncated = join(dir, "truncated.json");
    writeFileSync(truncated, readFileSync(factsOf(MRVL)).subarray(0, 20_000));
    const cut = await importCli(store, ["financials", truncated]);
    expect(cut.code).toBe(EXIT_FAILURE);
    expect(cut.text).toContain("not an SEC company-facts document: not JSON");

    const noCik = join(dir, "no-cik.json");
    writeFileSync(noCik, readFileSync(factsOf(MRVL), "utf8").replace(/^\{"cik":\d+/, '{"cik":"Marvell"'));
    const nameForCik = await importCli(store, ["financials", noCik]);
    expect(nameForCik.code).toBe(EXIT_FAILURE);
    expect(nameForCik.text).toContain("not an SEC company-facts document: no cik");

    // 65 MiB once uncompressed, some 65 KiB as written: refused at the cap, not read into memory whole.
    const bomb = join(dir, "bomb.json.gz");
    writeFileSync(bomb, gzipSync(Buffer.concat([Buffer.from('{"cik":1835632,"x":"'), Buffer.alloc(65 * 2 ** 20, 32)])));
    const tooLarge = await importCli(store, ["financials", bomb]);
    expect(tooLarge.code).toBe(EXIT_FAILURE);
    expect(tooLarge.text).toContain("larger than 64 MiB, the most read whole");

    const csv = join(dir, "financials.csv");
    writeFileSync(csv, "symbol,period_end\nMRVL,2024-02-03\n");
    const notFacts = await importCli(store, ["financials", csv, "--format", "sec"]);
    expect(notFacts.code).toBe(EXIT_FAILURE);
    expect(notFacts.text).toContain("not an SEC company-facts document");

    const asSecurities = await importCli(store, ["securities", factsOf(MRVL)]);
    expect(asSecurities.code).toBe(EXIT_FAILURE);
    expect(asSecurities.text).toContain("an SEC company-facts document is imported as financials, not securities");
    const wrongFormat = await importCli(store, ["securities", factsOf(MRVL), "--format", "sec"]);
    expect(wrongFormat.code).toBe(EXIT_FAILURE);
    expect(wrongFormat.text).toContain("--format sec is for financials, not securities");

    expect(quarters(store)).toEqual([]);
  });
});
