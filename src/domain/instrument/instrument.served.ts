import { NotAvailableError } from "../../platform/errors";

/**
 * A field of a security's identity as its answer carries it. A row store fills every one; an upstream's REST
 * answers carry only some (a quote names no company, an ETF's fundamentals no exchange), and a field its answers
 * leave out is left undefined: asking for it is 404 NOT_AVAILABLE at that field, never an invented value.
 */
export function served<T>(value: T | undefined, field: string): T {
  if (value === undefined) {
    throw new NotAvailableError(`${field} is not served by this service's data source`, field);
  }
  return value;
}
