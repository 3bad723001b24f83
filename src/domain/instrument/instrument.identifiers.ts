/** ISIN: two letters, nine alphanumerics, one check digit (ISO 6166, Luhn over the digit expansion). */
export function isinCheckDigit(first11: string): number {
  let digits = "";
  for (const ch of first11) digits += ch >= "A" && ch <= "Z" ? String(ch.charCodeAt(0) - 55) : ch;
  let sum = 0;
  let double = true;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return (10 - (sum % 10)) % 10;
}

export const ISIN_SHAPE = /^[A-Z]{2}[A-Z0-9]{9}[0-9]$/;

export function isValidIsin(s: string): boolean {
  return ISIN_SHAPE.test(s) && isinCheckDigit(s.slice(0, 11)) === Number(s[11]);
}

/**
 * CUSIP: eight alphanumerics (`*`, `@`, `#` allowed in private placements) and a check digit, the "double-add-double"
 * mod 10 sum: each character's value (digits as themselves, A-Z as 10-35, `*` 36, `@` 37, `#` 38), every second one
 * doubled, the digits of each product added.
 */
export const CUSIP_SHAPE = /^[0-9A-Z*@#]{8}[0-9]$/;

function cusipValue(ch: string): number {
  const code = ch.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  return ch === "*" ? 36 : ch === "@" ? 37 : 38;
}

export function cusipCheckDigit(first8: string): number {
  let sum = 0;
  for (let i = 0; i < 8; i++) {
    let v = cusipValue(first8[i]!);
    if (i % 2 === 1) v *= 2;
    sum += Math.floor(v / 10) + (v % 10);
  }
  return (10 - (sum % 10)) % 10;
}

export function isValidCusip(s: string): boolean {
  return CUSIP_SHAPE.test(s) && cusipCheckDigit(s.slice(0, 8)) === Number(s[8]);
}

/** WKN (Wertpapierkennnummer): six digits or capital letters, never I or O (they read as 1 and 0); no check digit. */
export const WKN_SHAPE = /^[0-9A-HJ-NP-Z]{6}$/;

export function isValidWkn(s: string): boolean {
  return WKN_SHAPE.test(s);
}

/** The identifiers a client may name one security by (docs/contract.md section 1): exactly one of them. */
export const SECURITY_IDENTIFIERS = ["symbol", "isin", "cusip", "wkn"] as const;
export type SecurityIdentifier = (typeof SECURITY_IDENTIFIERS)[number];
