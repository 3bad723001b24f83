import * as currencyCodes from "currency-codes";
import * as isoCountries from "i18n-iso-countries";
import english from "i18n-iso-countries/langs/en.json";
import type { SessionHours } from "./sample.sessions";

/**
 * Reference data: exchanges, currencies and countries. Currency and country
 * codes and names come from maintained packages (currency-codes for ISO 4217,
 * i18n-iso-countries for ISO 3166); the few short lists here only say WHICH
 * codes play a role, and every code is checked against those packages.
 */

isoCountries.registerLocale(english);

/** An exchange: its session hours are local times in its IANA time zone (sample.sessions.ts). */
export interface ExchangeDef extends SessionHours {
  code: string;
  name: string;
  country: string | null;
  currency: string;
  /** Symbol suffix of its listings, e.g. ".DE"; "" for US exchanges. */
  suffix: string;
}

export const EXCHANGES: readonly ExchangeDef[] = [
  {
    code: "XNAS",
    name: "Nasdaq",
    country: "US",
    currency: "USD",
    timezone: "America/New_York",
    suffix: "",
    open: "09:30",
    close: "16:00",
    holidays: "US",
  },
  {
    code: "XNYS",
    name: "New York Stock Exchange",
    country: "US",
    currency: "USD",
    timezone: "America/New_York",
    suffix: "",
    open: "09:30",
    close: "16:00",
    holidays: "US",
  },
  {
    code: "XFRA",
    name: "Frankfurt Stock Exchange",
    country: "DE",
    currency: "EUR",
    timezone: "Europe/Berlin",
    suffix: ".F",
    open: "09:00",
    close: "17:30",
    holidays: "DE",
  },
  {
    code: "XETR",
    name: "Xetra",
    country: "DE",
    currency: "EUR",
    timezone: "Europe/Berlin",
    suffix: ".DE",
    open: "09:00",
    close: "17:30",
    holidays: "DE",
  },
  {
    code: "XLON",
    name: "London Stock Exchange",
    country: "GB",
    currency: "GBP",
    timezone: "Europe/London",
    suffix: ".L",
    open: "08:00",
    close: "16:30",
    holidays: "GB",
  },
  {
    code: "XPAR",
    name: "Euronext Paris",
    country: "FR",
    currency: "EUR",
    timezone: "Europe/Paris",
    suffix: ".PA",
    open: "09:00",
    close: "17:30",
    holidays: "EURONEXT",
  },
  {
    code: "XAMS",
    name: "Euronext Amsterdam",
    country: "NL",
    currency: "EUR",
    timezone: "Europe/Amsterdam",
    suffix: ".AS",
    open: "09:00",
    close: "17:30",
    holidays: "EURONEXT",
  },
  {
    code: "XSWX",
    name: "SIX Swiss Exchange",
    country: "CH",
    currency: "CHF",
    timezone: "Europe/Zurich",
    suffix: ".SW",
    open: "09:00",
    close: "17:30",
    holidays: "CH",
  },
  {
    code: "XTKS",
    name: "Tokyo Stock Exchange",
    country: "JP",
    currency: "JPY",
    timezone: "Asia/Tokyo",
    suffix: ".T",
    open: "09:00",
    close: "15:30",
    holidays: "JP",
  },
  {
    code: "XTSE",
    name: "Toronto Stock Exchange",
    country: "CA",
    currency: "CAD",
    timezone: "America/Toronto",
    suffix: ".TO",
    open: "09:30",
    close: "16:00",
    holidays: "CA",
  },
  {
    code: "XASX",
    name: "Australian Securities Exchange",
    country: "AU",
    currency: "AUD",
    timezone: "Australia/Sydney",
    suffix: ".AX",
    open: "10:00",
    close: "16:00",
    holidays: "AU",
  },
  {
    code: "XHKG",
    name: "Hong Kong Stock Exchange",
    country: "HK",
    currency: "HKD",
    timezone: "Asia/Hong_Kong",
    suffix: ".HK",
    open: "09:30",
    close: "16:00",
    holidays: "HK",
  },
  // Crypto days run 00:00-24:00 UTC, every day.
  {
    code: "CRYPTO",
    name: "Crypto (composite)",
    country: null,
    currency: "USD",
    timezone: "UTC",
    suffix: "",
    open: "00:00",
    close: "24:00",
    holidays: null,
  },
  {
    // A forex day ends at 17:00 New York; the market trades on every weekday.
    code: "FOREX",
    name: "Foreign Exchange (composite)",
    country: null,
    currency: "USD",
    timezone: "America/New_York",
    suffix: "",
    open: "00:00",
    close: "17:00",
    holidays: null,
  },
  {
    code: "FUND",
    name: "Mutual Funds (NAV)",
    country: null,
    currency: "USD",
    timezone: "America/New_York",
    suffix: "",
    open: "09:30",
    close: "16:00",
    holidays: "US",
  },
];

const exchangeByCode = new Map(EXCHANGES.map((e) => [e.code, e]));

export function exchange(code: string): ExchangeDef {
  const e = exchangeByCode.get(code);
  if (!e) throw new Error(`Unknown exchange ${code}`);
  return e;
}

/**
 * The forex majors in market-quoting priority: a pair is written with the
 * higher-priority currency as base (EURUSD, GBPJPY, USDCAD, NOKSEK).
 */
export const MAJOR_CURRENCIES = ["EUR", "GBP", "AUD", "NZD", "USD", "CAD", "CHF", "NOK", "SEK", "JPY"] as const;

// ISO 4217 also codes precious metals, bond-market units, fund codes and test
// codes; none of them is a currency a forex desk quotes against the dollar.
const NON_CURRENCY_NAME = /Unidad|Unidades|WIR |Mvdol|Next day|Unit of Account|SDR|Sucre/i;

let tradeable: string[] | undefined;

/** ISO 4217 codes of circulating currencies, sorted. */
export function isoCurrencies(): readonly string[] {
  if (!tradeable) {
    tradeable = currencyCodes.data
      .filter((r) => r.countries.length > 0 && !r.countries.every((c) => c.startsWith("Zz")))
      .filter((r) => !NON_CURRENCY_NAME.test(r.currency))
      .map((r) => r.code)
      .sort();
  }
  return tradeable;
}

export function currencyName(code: string): string {
  const r = currencyCodes.code(code);
  if (!r) throw new Error(`Unknown ISO 4217 currency ${code}`);
  return r.currency.trim();
}

export function currencyDigits(code: string): number {
  return currencyCodes.code(code)?.digits ?? 2;
}

export function countryName(alpha2: string): string {
  const name = isoCountries.getName(alpha2, "en");
  if (!name) throw new Error(`Unknown ISO 3166 country ${alpha2}`);
  return name;
}

/** Fails fast when a hand-picked code is not in the maintained lists. */
export function assertReferenceCodes(countries: readonly string[], currencies: readonly string[]): void {
  for (const c of countries) if (!isoCountries.isValid(c)) throw new Error(`Not an ISO 3166 alpha-2 code: ${c}`);
  for (const c of currencies) if (!currencyCodes.code(c)) throw new Error(`Not an ISO 4217 code: ${c}`);
}

assertReferenceCodes(
  EXCHANGES.flatMap((e) => (e.country ? [e.country] : [])),
  [...EXCHANGES.map((e) => e.currency), ...MAJOR_CURRENCIES],
);
