import { registerEnumType } from "type-graphql";

export enum SecurityKind {
  stock = "stock",
  etf = "etf",
  fund = "fund",
  crypto = "crypto",
  forex = "forex",
}

registerEnumType(SecurityKind, { name: "SecurityType", description: "What kind of security a listing belongs to" });
