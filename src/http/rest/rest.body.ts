import { z } from "zod";
import { SECURITY_IDENTIFIERS } from "../../domain/instrument/instrument.identifiers";
import { InvalidArgumentError, type ErrorDetail } from "../../platform/errors";

/** The longest symbol or identifier a body may carry, after trimming. */
const IDENTIFIER_MAX = 64;

/** Reusable field schemas with messages a client can act on. */
export const symbolField = z
  .string({ error: "expected a string" })
  .trim()
  .min(1, { error: "expected a non-empty string" })
  .max(IDENTIFIER_MAX, { error: `at most ${IDENTIFIER_MAX} characters` })
  .describe("Symbol of a listing, case-insensitive (crypto as BTC-USD; BTCUSD, BTC/USD and BTC are accepted)");

export const isinField = z
  .string({ error: "expected a string" })
  .trim()
  .min(1, { error: "expected a non-empty string" })
  .max(IDENTIFIER_MAX, { error: `at most ${IDENTIFIER_MAX} characters` })
  .describe("ISIN (12 characters with a valid check digit); names the primary listing");

export const cusipField = z
  .string({ error: "expected a string" })
  .trim()
  .min(1, { error: "expected a non-empty string" })
  .max(IDENTIFIER_MAX, { error: `at most ${IDENTIFIER_MAX} characters` })
  .describe("CUSIP (9 characters with a valid check digit); names the primary listing");

export const wknField = z
  .string({ error: "expected a string" })
  .trim()
  .min(1, { error: "expected a non-empty string" })
  .max(IDENTIFIER_MAX, { error: `at most ${IDENTIFIER_MAX} characters` })
  .describe("WKN (6 letters or digits, no I or O); names the primary listing");

export const currencyField = z
  .string({ error: "expected a string" })
  .trim()
  .min(1, { error: "expected a non-empty string" })
  .max(16)
  .describe("ISO 4217 code to answer prices in (case-insensitive); default: the listing's currency");

export const limitField = z
  .number({ error: "expected an integer" })
  .int({ error: "expected an integer" })
  .describe("Page size");

export const cursorField = z
  .string({ error: "expected a string" })
  .max(200, { error: "at most 200 characters" })
  .describe("`nextCursor` of the previous page");

/**
 * Exactly one of `{symbol}`, `{isin}`, `{cusip}` or `{wkn}` plus the endpoint's own fields, as one object: a
 * security may be named any of these ways wherever one is meant (docs/contract.md section 1); two at once is
 * malformed. (One object, not an intersection with `.and`: zod checks an intersection twice and merges the results,
 * measurably on the hot path.)
 */
export function securityRefWith<S extends z.ZodRawShape>(
  shape: S,
  missing: { field: "symbol" | "isin"; message: string } = {
    field: "symbol",
    message: "expected a non-empty string (or isin, cusip or wkn)",
  },
) {
  const schema = z
    .object({
      symbol: symbolField.optional(),
      isin: isinField.optional(),
      cusip: cusipField.optional(),
      wkn: wknField.optional(),
      ...shape,
    })
    .superRefine((b, ctx) => {
      const named = SECURITY_IDENTIFIERS.filter((k) => (b as SecurityIds)[k] !== undefined);
      if (named.length === 0) {
        ctx.addIssue({ code: "custom", message: missing.message, path: [missing.field] });
      } else if (named.length > 1) {
        ctx.addIssue({
          code: "custom",
          message: `name the security by exactly one of symbol, isin, cusip or wkn, not ${named.join(" and ")}`,
          path: [named[1]!],
        });
      }
    });
  // Every other field absent gives nothing (no default): `{"symbol": …}` alone then parses to `{symbol}`, trimmed.
  const plain = Object.values(shape).every((f) => {
    const r = (f as z.ZodType).safeParse(undefined);
    return r.success && r.data === undefined;
  });
  if (plain) SYMBOL_ONLY.add(schema);
  return schema;
}

/** securityRefWith schemas for which `{"symbol": "…"}` alone parses to `{symbol: "…".trim()}`. */
const SYMBOL_ONLY = new WeakSet<object>();

/**
 * The common body of the single-security routes, `{"symbol": "AAPL"}`, without running zod: for a route whose body is
 * `securityRefWith(…).transform(f)` (SYMBOL_ONLY), a body whose one field is a symbol that `symbolField` accepts
 * as it is parses to `f({symbol})`, which is what zod would answer (same trim, same bounds). Any other body, and any
 * other schema, goes through zod. Null: no fast path for the schema.
 */
function symbolOnlyParser(schema: z.ZodType): ((body: unknown) => unknown) | null {
  if (!(schema instanceof z.ZodPipe) || !SYMBOL_ONLY.has(schema.in) || !(schema.out instanceof z.ZodTransform)) {
    return null;
  }
  // zod's own reference to the function given to `.transform` (its transforms here read only their input).
  const transform = (schema.out as z.ZodTransform)._zod.def.transform as (input: unknown) => unknown;
  return (body) => {
    if (typeof body !== "object" || body === null) return undefined;
    let keys = 0;
    for (const k in body) if (Object.hasOwn(body, k) && ++keys > 1) return undefined;
    const raw = (body as { symbol?: unknown }).symbol;
    if (keys !== 1 || typeof raw !== "string" || !Object.hasOwn(body, "symbol")) return undefined;
    const symbol = raw.trim();
    if (symbol.length < 1 || symbol.length > IDENTIFIER_MAX) return undefined;
    return transform({ symbol });
  };
}

const symbolOnlyParsers = new WeakMap<z.ZodType, ((body: unknown) => unknown) | null>();

interface SecurityIds {
  symbol?: string;
  isin?: string;
  cusip?: string;
  wkn?: string;
}

/** The operation variables naming a security: each identifier, null when not sent. */
export function securityVariables(b: SecurityIds): {
  symbol: string | null;
  isin: string | null;
  cusip: string | null;
  wkn: string | null;
} {
  return { symbol: b.symbol ?? null, isin: b.isin ?? null, cusip: b.cusip ?? null, wkn: b.wkn ?? null };
}

export const securityRefBody = securityRefWith({});

/** A security and an optional `currency` to answer its money in, as the operation's variables. */
export const securityCurrencyBody = securityRefWith({ currency: currencyField.optional() }).transform((b) => ({
  ...securityVariables(b),
  currency: b.currency ?? null,
}));

/**
 * Parses a request body against a route's schema. Fields beyond those listed
 * are ignored (existing clients send more than the spec shows); a missing or
 * ill-typed field is INVALID_ARGUMENT naming the field.
 */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  let fast = symbolOnlyParsers.get(schema);
  if (fast === undefined) symbolOnlyParsers.set(schema, (fast = symbolOnlyParser(schema)));
  const variables = fast?.(body);
  if (variables !== undefined) return variables as T;
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const details: ErrorDetail[] = r.error.issues.map((i) => ({
    field: i.path.length ? i.path.join(".") : "body",
    issue: i.code === "invalid_type" && i.input === undefined ? "required" : i.message,
  }));
  const first = r.error.issues[0]!;
  const field = first.path.length ? first.path.join(".") : "body";
  const message = first.code === "invalid_type" && first.input === undefined ? "required" : first.message;
  throw new InvalidArgumentError(`${field}: ${message}`, details);
}

const DAY_TEXT = /^\d{4}-\d{2}-\d{2}$/;
/** Largest Unix second a GraphQL Int holds (2038-01-19). */
export const MAX_UNIX_SECONDS = 2_147_483_647;

function dayTextToUnix(text: string): number | null {
  if (!DAY_TEXT.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) return null;
  return ms / 1000;
}

/**
 * An instant given as Unix seconds (a JSON number) or as a day `YYYY-MM-DD`
 * (its 00:00 UTC), answered as Unix seconds. A string of digits is refused
 * (is "20261120" a day or a second?), and so are milliseconds, with a message
 * saying so rather than read as a far-future date.
 */
export const unixTimeField = z
  .union([z.number(), z.string()], { error: "expected Unix seconds or a date YYYY-MM-DD" })
  .transform((v, ctx) => {
    const n = typeof v === "number" ? v : dayTextToUnix(v.trim());
    if (n === null || !Number.isInteger(n) || n < 0) {
      ctx.addIssue({ code: "custom", message: "expected Unix seconds (a non-negative integer) or a date YYYY-MM-DD" });
      return z.NEVER;
    }
    if (n > MAX_UNIX_SECONDS) {
      ctx.addIssue({
        code: "custom",
        message:
          n >= 1e11
            ? "expected Unix seconds, got what looks like milliseconds"
            : "after 2038-01-19, the last instant supported",
      });
      return z.NEVER;
    }
    return n;
  })
  .describe("Unix seconds, or a day YYYY-MM-DD (its 00:00 UTC)");

/** Milliseconds as the Dart client sends them: a string of 11 to 13 digits (1970-04-26 to 2286). */
const MILLISECOND_TEXT = /^\d{11,13}$/;

/**
 * An instant in any form the Bavest SDKs send, answered as whole Unix seconds: a number of seconds, integer or
 * fractional (Python sends `datetime.timestamp()`, a float; the fraction is dropped), a string of 11 to 13 digits in
 * milliseconds (Dart sends `millisecondsSinceEpoch.toString()`), or a day `YYYY-MM-DD` (its 00:00 UTC). A shorter
 * string of digits is refused: is "1700000000" seconds or milliseconds? A number of milliseconds is refused as
 * `unixTimeField` refuses it. docs/contract.md section 1 has the table of these forms.
 */
export const sdkTimeField = z
  .union([z.number(), z.string()], {
    error: "expected Unix seconds, milliseconds as a string of digits, or a date YYYY-MM-DD",
  })
  .transform((v, ctx) => {
    let n: number | null;
    if (typeof v === "number") n = Number.isFinite(v) ? Math.floor(v) : null;
    else {
      const text = v.trim();
      n = MILLISECOND_TEXT.test(text) ? Math.floor(Number(text) / 1000) : dayTextToUnix(text);
    }
    if (n === null || n < 0) {
      ctx.addIssue({
        code: "custom",
        message:
          "expected Unix seconds (a non-negative number), milliseconds as a string of 11 to 13 digits, " +
          "or a date YYYY-MM-DD",
      });
      return z.NEVER;
    }
    if (n > MAX_UNIX_SECONDS) {
      ctx.addIssue({
        code: "custom",
        message:
          n >= 1e11
            ? "expected Unix seconds, got what looks like milliseconds (send them as a string of digits)"
            : "after 2038-01-19, the last instant supported",
      });
      return z.NEVER;
    }
    return n;
  })
  .describe(
    "Unix seconds (integer or fractional), milliseconds as a string of 11 to 13 digits, or a day YYYY-MM-DD " +
      "(its 00:00 UTC)",
  );

/** `sdkTimeField`'s instant as the UTC day holding it, `YYYY-MM-DD`. */
export const sdkDayField = sdkTimeField
  .transform((s) => new Date(s * 1000).toISOString().slice(0, 10))
  .describe(
    "A day YYYY-MM-DD, or the UTC day holding an instant given as Unix seconds (integer or fractional) or as " +
      "milliseconds in a string of 11 to 13 digits",
  );

/** A day given as `YYYY-MM-DD` or as Unix seconds (the UTC day holding that instant), answered as `YYYY-MM-DD`. */
export const dayField = unixTimeField
  .transform((s) => new Date(s * 1000).toISOString().slice(0, 10))
  .describe("A day YYYY-MM-DD, or Unix seconds (the UTC day holding that instant)");

/**
 * `{symbol | isin, from?, to?, resolution?, currency?}`: a security over a time range (candles, ETF metrics).
 * Each endpoint brings its own resolution field, since they accept different periods.
 */
export function securityRangeBody<R extends z.ZodType<string>>(resolution: R) {
  return securityRefWith({
    from: unixTimeField.optional(),
    to: unixTimeField.optional(),
    resolution: resolution.optional(),
    currency: currencyField.optional(),
  }).transform((b) => ({
    ...securityVariables(b),
    from: b.from ?? null,
    to: b.to ?? null,
    resolution: (b.resolution as string | undefined) ?? null,
    currency: b.currency ?? null,
  }));
}
