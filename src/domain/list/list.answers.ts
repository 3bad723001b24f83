import type { RequestContext } from "../request.context";
import { listAssets } from "./list.service";
import type { AssetListPage, ListArgs } from "./list.types";

/** The lists of securities a client can page through, by the REST path's name. */
export type ListName = "stocks" | "etfs" | "funds" | "crypto";

/** Whole lists, page by page (the answer level: see etf/etf.answers.ts). */
export interface ListAnswers {
  page(ctx: RequestContext, list: ListName, args: ListArgs): Promise<AssetListPage>;
}

const TYPES = { stocks: ["stock"], etfs: ["etf"], funds: ["fund"], crypto: ["crypto"] } as const;

/** The answers computed by the domain services from a row store's rows. */
export const ROW_STORE_LIST_ANSWERS: ListAnswers = Object.freeze({
  page: (ctx: RequestContext, list: ListName, args: ListArgs) => listAssets(ctx, list, [...TYPES[list]], args),
});
