import type { RequestContext } from "../request.context";
import { getCryptoPrice } from "./crypto.service";
import type { CryptoPrice } from "./crypto.types";

/** Crypto prices, as the resolvers ask for them (the answer level: see etf/etf.answers.ts). */
export interface CryptoAnswers {
  price(ctx: RequestContext, symbol: string): Promise<CryptoPrice>;
}

/** The answers computed by the domain services from a row store's rows. */
export const ROW_STORE_CRYPTO_ANSWERS: CryptoAnswers = Object.freeze({ price: getCryptoPrice });
