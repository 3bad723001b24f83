import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseHistCsv, parseRatesXml } from "../../../src/sources/providers/ecb/ecb.rates";
import { ecbLoads } from "../../../src/sources/providers/ecb/ecb.loads";
import { missedFixings } from "../../../src/sources/providers/ecb/ecb.provider";

const FIXTURES = join(__dirname, "..", "..", "fixtures", "providers", "ecb");

describe("the ECB's files", () => {
  it("reads the daily XML as published: one day, 31 currencies, the text of each rate", () => {
    const t = parseRatesXml(readFileSync(join(FIXTURES, "eurofxref-daily.xml"), "utf8"));
    expect(t.days.map((d) => d.day)).toEqual(["2022-07-08"]);
    expect(t.currencies).toHaveLength(31);
    expect(t.days[0]!.rates).toMatchObject({ USD: "1.0163", JPY: "138.05", PLN: "4.7630" });
  });

  it("reads the history CSV oldest first, N/A as no rate, agreeing with the daily file on the day after", async () => {
    const t = await parseHistCsv(readFileSync(join(FIXTURES, "eurofxref-hist.csv"), "utf8"));
    expect(t.days.map((d) => d.day)).toEqual([
      "2022-06-24",
      "2022-06-27",
      "2022-06-28",
      "2022-06-29",
      "2022-06-30",
      "2022-07-01",
      "2022-07-04",
      "2022-07-05",
      "2022-07-06",
      "2022-07-07",
    ]);
    expect(t.currencies).toHaveLength(41);
    expect(t.days[9]).toMatchObject({ row: 2, rates: { USD: "1.018", JPY: "138.11" } });
    expect(t.days[9]!.rates.CYP).toBeUndefined();
  });

  it("makes each pair's bars and quote: the euro pair's published number, the dollar pair crossed", async () => {
    const t = await parseHistCsv(readFileSync(join(FIXTURES, "eurofxref-hist.csv"), "utf8"));
    const loads = ecbLoads(t, "eurofxref-hist.csv", { symbols: new Set(["EURUSD", "USDJPY"]) });
    const bars = [...loads.find((l) => l.kind === "daily-bars")!.records].filter((r) => r.values.day === "2022-07-07");
    expect(bars.map((b) => b.values)).toEqual([
      { symbol: "EURUSD", day: "2022-07-07", o: "1.018", h: "1.018", l: "1.018", c: "1.018", v: 0 },
      {
        symbol: "USDJPY",
        day: "2022-07-07",
        o: 138.11 / 1.018,
        h: 138.11 / 1.018,
        l: 138.11 / 1.018,
        c: 138.11 / 1.018,
        v: 0,
      },
    ]);
    const quotes = [...loads.find((l) => l.kind === "quotes")!.records].map((r) => r.values);
    expect(quotes[0]).toMatchObject({ symbol: "EURUSD", c: "1.018", pc: "1.0177" });
  });

  it("refuses files that are not the ECB's", async () => {
    await expect(parseHistCsv("Date,Open,Close\n")).rejects.toThrow("expected the ECB's rates CSV");
    await expect(parseHistCsv("Date,USD,\nyesterday,1.1,\n")).rejects.toThrow("line 2: expected a day");
    expect(() => parseRatesXml("<Cube><Cube time='2022-07-08'><Cube currency='JPY' rate='1'/></Cube></Cube>")).toThrow(
      "no USD",
    );
  });
});

describe("missedFixings", () => {
  it("sees a working day without its fixing, and not weekends or TARGET holidays", () => {
    expect(missedFixings("2022-07-07", "2022-07-08")).toBe(false);
    // Friday to Monday: a weekend.
    expect(missedFixings("2022-07-01", "2022-07-04")).toBe(false);
    // Friday to Tuesday: Monday was missed.
    expect(missedFixings("2022-07-01", "2022-07-05")).toBe(true);
    // Maundy Thursday to the Tuesday after Easter 2022: Good Friday and Easter Monday are closed.
    expect(missedFixings("2022-04-14", "2022-04-19")).toBe(false);
    expect(missedFixings("2024-03-28", "2024-04-02")).toBe(false);
    // 23 to 27 December 2021: 24 December, a Friday, was open (Christmas fell on the weekend).
    expect(missedFixings("2021-12-23", "2021-12-27")).toBe(true);
    expect(missedFixings("2022-12-23", "2022-12-27")).toBe(false);
  });
});
