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
