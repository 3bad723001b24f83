import { registerEnumType } from "type-graphql";

/** The GraphQL enum `SecurityType`: the values of the sources' `SecurityType` union. */
export enum SecurityTypeEnum {
  stock = "stock",
  etf = "etf",
  fund = "fund",
  crypto = "crypto",
  forex = "forex",
}

registerEnumType(SecurityTypeEnum, { name: "SecurityType", description: "What kind of security a listing belongs to" });

/** Descriptions of the `cusip` and `wkn` arguments, the same wherever one security is named. */
export const CUSIP_ARG = "CUSIP (9 characters with a correct check digit); resolves to the primary listing";
export const WKN_ARG = "WKN (6 letters or digits, no I or O; German securities); resolves to the primary listing";
