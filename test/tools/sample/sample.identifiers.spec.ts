import {
  cusipCheckDigit,
  IdentifierRegistry,
  isinCheckDigit,
  isValidCusip,
  isValidIsin,
  isValidSedol,
  makeIsin,
  sedolCheckDigit,
} from "../../../src/tools/sample/sample.identifiers";
import { Random } from "../../../src/sources/sample/sample.random";

describe("sample identifiers", () => {
  it.each([
    ["037833100", "Apple"],
    ["594918104", "Microsoft"],
    ["38259P508", "Alphabet (letter in the issuer number)"],
    ["88160R101", "Tesla"],
  ])("computes the CUSIP check digit of %s (%s)", (cusip) => {
    expect(cusipCheckDigit(cusip.slice(0, 8))).toBe(Number(cusip[8]));
    expect(isValidCusip(cusip)).toBe(true);
  });

  it.each([
    ["US0378331005", "Apple"],
    ["US5949181045", "Microsoft"],
    ["DE0007164600", "SAP"],
    ["GB0002634946", "BAE Systems"],
    ["CH0038863350", "Nestlé"],
    ["JP3633400001", "Toyota"],
    ["AU000000BHP4", "BHP"],
    ["NL0010273215", "ASML"],
    ["FR0000120271", "TotalEnergies"],
    ["IE00B4L5Y983", "an Irish UCITS ETF"],
  ])("computes the ISIN check digit of %s (%s)", (isin) => {
    expect(isinCheckDigit(isin.slice(0, 11))).toBe(Number(isin[11]));
    expect(isValidIsin(isin)).toBe(true);
  });

  it("builds a US ISIN from a CUSIP", () => {
    expect(makeIsin("US", "037833100")).toBe("US0378331005");
  });

  it("computes SEDOL check digits", () => {
    expect(sedolCheckDigit("026349")).toBe(4);
    expect(isValidSedol("0263494")).toBe(true);
    expect(isValidSedol("B4L5Y98")).toBe(true);
  });

  it("rejects identifiers with a wrong check digit", () => {
    expect(isValidIsin("US0378331006")).toBe(false);
    expect(isValidCusip("037833101")).toBe(false);
    expect(isValidSedol("0263495")).toBe(false);
  });

  it("hands out unique, valid identifiers in national formats", () => {
    const ids = new IdentifierRegistry(Random.fromSeed(1, "ids"));
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const { cusip, isin } = ids.cusipIsin("US", "equity");
      expect(isValidCusip(cusip)).toBe(true);
      expect(isin).toBe(makeIsin("US", cusip));
      seen.add(isin);
    }
    for (const country of ["GB", "IE", "DE", "FR", "NL", "CH", "JP", "HK", "CN", "AU", "LU", "BR"]) {
      for (let i = 0; i < 200; i++) {
        const isin = ids.isin(country);
        expect(isValidIsin(isin)).toBe(true);
        expect(isin.startsWith(country)).toBe(true);
        seen.add(isin);
      }
    }
    expect(seen.size).toBe(2000 + 12 * 200);
    const gb = ids.isin("GB");
    expect(gb.startsWith("GB00")).toBe(true);
    expect(isValidSedol(gb.slice(4, 11))).toBe(true);
  });
});
