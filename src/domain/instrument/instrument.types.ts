import { registerEnumType } from "type-graphql";

/** The GraphQL enum `SecurityType`: the values of the sources' `SecurityType` union. */
export enum SecurityTypeEnum {
  stock = "stock",
  etf = "etf",
  fund = "fund",
  crypto = "crypto",
  forex = "forex",
}

// Lower case: the same strings as REST's `type` and the bulk and search filters; see graphql-schema-linter.config.js.
registerEnumType(SecurityTypeEnum, {
  name: "SecurityType",
  description: "What kind of security a listing belongs to",
  valuesConfig: {
    stock: { description: "A company's share (common stock or ADR)" },
    etf: { description: "An exchange-traded fund" },
    fund: { description: "A mutual fund, known by its ISIN" },
    crypto: { description: "A crypto pair such as BTC-USD" },
    forex: { description: "A currency pair such as EURUSD" },
  },
});

/** Descriptions of the `cusip` and `wkn` arguments, the same wherever one security is named. */
export const CUSIP_ARG = "CUSIP (9 characters with a correct check digit); resolves to the primary listing";
export const WKN_ARG = "WKN (6 letters or digits, no I or O; German securities); resolves to the primary listing";
