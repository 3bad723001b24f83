import type { RequestContext } from "../request.context";
import { getIndexConstituents } from "./indices.service";
import type { IndexConstituents } from "./indices.types";

/** Index constituents (the answer level: see etf/etf.answers.ts). */
export interface IndicesAnswers {
  constituents(ctx: RequestContext, symbol: string): Promise<IndexConstituents>;
}

/** The answers computed by the domain services from a row store's rows. */
export const ROW_STORE_INDICES_ANSWERS: IndicesAnswers = Object.freeze({ constituents: getIndexConstituents });
