import type { Random } from "../../sources/sample/sample.random";

/**
 * Security identifiers with real check digits: CUSIP, SEDOL and ISIN.
 * Generated identifiers are fictional but pass the same validation a client
 * library would apply, so they can be used to exercise ISIN/CUSIP lookups.
 */

const CUSIP_RE = /^[0-9A-Z*@#]{8}[0-9]$/;
const ISIN_RE = /^[A-Z]{2}[0-9A-Z]{9}[0-9]$/;
const SEDOL_RE = /^[0-9BCDFGHJKLMNPQRSTVWXYZ]{6}[0-9]$/;

function charValue(ch: string): number {
  const code = ch.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  if (ch === "*") return 36;
  if (ch === "@") return 37;
  if (ch === "#") return 38;
  throw new Error(`Invalid identifier character "${ch}"`);
}

/** Check digit of an 8-character CUSIP base (6 characters for the issuer, 2 for the security). */
export function cusipCheckDigit(base8: string): number {
  if (base8.length !== 8) throw new Error(`CUSIP base must have 8 characters: "${base8}"`);
  let sum = 0;
  for (let i = 0; i < 8; i++) {
    let v = charValue(base8[i] as string);
    if (i % 2 === 1) v *= 2;
    sum += Math.floor(v / 10) + (v % 10);
  }
  return (10 - (sum % 10)) % 10;
}

export function isValidCusip(cusip: string): boolean {
  return CUSIP_RE.test(cusip) && cusipCheckDigit(cusip.slice(0, 8)) === Number(cusip[8]);
}

/** Check digit of an 11-character ISIN base (country 2 + NSIN 9). */
export function isinCheckDigit(base11: string): number {
  if (!/^[A-Z]{2}[0-9A-Z]{9}$/.test(base11)) throw new Error(`Invalid ISIN base "${base11}"`);
  let digits = "";
  for (const ch of base11) digits += String(charValue(ch));
  // Luhn over the expanded digits; the rightmost digit is doubled because the
  // check digit will be appended to its right.
  let sum = 0;
  let double = true;
  for (let i = digits.length - 1; i >= 0; i--) {
    let v = digits.charCodeAt(i) - 48;
    if (double) {
      v *= 2;
      if (v > 9) v -= 9;
    }
    sum += v;
    double = !double;
  }
  return (10 - (sum % 10)) % 10;
}

export function makeIsin(country: string, nsin: string): string {
  const base = country + nsin;
  return base + String(isinCheckDigit(base));
}

export function isValidIsin(isin: string): boolean {
  return ISIN_RE.test(isin) && isinCheckDigit(isin.slice(0, 11)) === Number(isin[11]);
}

const SEDOL_WEIGHTS = [1, 3, 1, 7, 3, 9] as const;

/** Check digit of a 6-character SEDOL base (UK and Irish securities). */
export function sedolCheckDigit(base6: string): number {
  if (!/^[0-9BCDFGHJKLMNPQRSTVWXYZ]{6}$/.test(base6)) throw new Error(`Invalid SEDOL base "${base6}"`);
  let sum = 0;
  for (let i = 0; i < 6; i++) sum += charValue(base6[i] as string) * (SEDOL_WEIGHTS[i] as number);
  return (10 - (sum % 10)) % 10;
}

export function isValidSedol(sedol: string): boolean {
  return SEDOL_RE.test(sedol) && sedolCheckDigit(sedol.slice(0, 6)) === Number(sedol[6]);
}

const DIGITS = "0123456789";
const ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const SEDOL_CHARS = "0123456789BCDFGHJKLMNPQRSTVWXYZ";
const WKN_CHARS = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"; // WKNs avoid I and O

function randomChars(rng: Random, alphabet: string, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[rng.int(alphabet.length)];
  return s;
}

export type IssueKind = "equity" | "fund" | "bond";

/**
 * Hands out unique identifiers in each country's usual national format, so an
 * ISIN looks like it came from that country's numbering agency.
 */
export class IdentifierRegistry {
  private readonly isins = new Set<string>();
  private readonly cusips = new Set<string>();

  constructor(private readonly rng: Random) {}

  /** US and Canadian ISINs embed a CUSIP; returns both. */
  cusipIsin(country: "US" | "CA", kind: IssueKind): { cusip: string; isin: string } {
    for (;;) {
      const cusip = this.newCusip(kind);
      const isin = makeIsin(country, cusip);
      if (this.isins.has(isin)) continue;
      this.isins.add(isin);
      return { cusip, isin };
    }
  }

  /** An ISIN in the national style of `country` (not for US/CA equities, which need a CUSIP). */
  isin(country: string): string {
    for (;;) {
      const isin = makeIsin(country, this.nsin(country));
      if (this.isins.has(isin)) continue;
      this.isins.add(isin);
      return isin;
    }
  }

  private newCusip(kind: IssueKind): string {
    for (;;) {
      // Issuer numbers are mostly numeric with an occasional letter late in
      // the block (e.g. 38259P); the issue number says what was issued.
      let issuer = randomChars(this.rng, DIGITS, 3);
      issuer += this.rng.chance(0.25)
        ? randomChars(this.rng, DIGITS, 2) + randomChars(this.rng, ALNUM, 1)
        : randomChars(this.rng, DIGITS, 3);
      const issue =
        kind === "equity"
          ? this.rng.pick(["10", "10", "10", "20", "30", "40"])
          : kind === "fund"
            ? this.rng.pick(["10", "20", "30", "40", "50", "60", "70", "80"])
            : this.rng.pick(["AA", "AB", "AC", "AD", "AE", "AF"]);
      const base = issuer + issue;
      const cusip = base + String(cusipCheckDigit(base));
      if (this.cusips.has(cusip)) continue;
      this.cusips.add(cusip);
      return cusip;
    }
  }

  private nsin(country: string): string {
    const rng = this.rng;
    switch (country) {
      case "GB":
      case "IE": {
        const base = rng.chance(0.6) ? "B" + randomChars(rng, SEDOL_CHARS, 5) : "0" + randomChars(rng, DIGITS, 5);
        return "00" + base + String(sedolCheckDigit(base));
      }
      case "DE":
        return "000" + randomChars(rng, WKN_CHARS, 6);
      case "JP":
        return "3" + randomChars(rng, DIGITS, 5) + "000";
      case "CN":
        return "E1" + randomChars(rng, ALNUM, 7);
      case "AU":
        return "000000" + randomChars(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", 3);
      case "LU":
        return String(rng.int(3)) + randomChars(rng, DIGITS, 8);
      case "FR":
      case "NL":
      case "CH":
      case "HK":
        return "00" + randomChars(rng, DIGITS, 7);
      default:
        return "0" + randomChars(rng, DIGITS, 8);
    }
  }
}

/** WKNs use digits and capitals but I and O (docs/contract.md section 1). */
const WKN_ALPHABET = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ";
const WKN_SPACE = WKN_ALPHABET.length ** 5;

/** A German ISIN's WKN: characters 6 to 11 (DE 000 WKN check). */
export function wknOfIsin(isin: string | null): string | null {
  return isin?.startsWith("DE") ? isin.slice(5, 11) : null;
}

/**
 * The WKN of every security listed in Germany: a German ISIN's own, else one assigned in the A series, as WM
 * Datenservice does for foreign securities. Assigned ones are `A` and five characters of a bijection of the id
 * (multiplying by a constant prime to 34^5), stepping past any code a German ISIN already holds, so each is unique
 * and the same for the same securities.
 */
export function assignWkns(
  securities: readonly { id: number; isin: string | null }[],
  listedInGermany: ReadonlySet<number>,
): Map<number, string> {
  const out = new Map<number, string>();
  const taken = new Set<string>();
  for (const s of securities) {
    const own = wknOfIsin(s.isin);
    if (own) {
      out.set(s.id, own);
      taken.add(own);
    }
  }
  for (const s of [...securities].sort((a, b) => a.id - b.id)) {
    if (out.has(s.id) || !listedInGermany.has(s.id)) continue;
    for (let k = s.id; ; k += 1) {
      let n = (k * 7_919) % WKN_SPACE;
      let code = "";
      for (let i = 0; i < 5; i++, n = Math.floor(n / WKN_ALPHABET.length))
        code += WKN_ALPHABET[n % WKN_ALPHABET.length];
      const wkn = `A${code}`;
      if (taken.has(wkn)) continue;
      taken.add(wkn);
      out.set(s.id, wkn);
      break;
    }
  }
  return out;
}
