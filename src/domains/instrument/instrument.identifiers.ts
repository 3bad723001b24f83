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
