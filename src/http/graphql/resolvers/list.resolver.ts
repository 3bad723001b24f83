import { Args, Authorized, Ctx, Query, Resolver } from "type-graphql";
import type { Context } from "../../http.context";
import { AssetListPage, ListArgs } from "../../../domain/list/list.types";

@Resolver()
export class ListResolver {
  @Authorized("stock")
  @Query(() => AssetListPage, { description: "All stocks, keyset-paginated" })
  listStocks(@Args(() => ListArgs) args: ListArgs, @Ctx() ctx: Context): Promise<AssetListPage> {
    return ctx.answers.list.page(ctx, "stocks", args);
  }

  @Authorized("etf")
  @Query(() => AssetListPage, { description: "All ETFs, keyset-paginated" })
  listEtfs(@Args(() => ListArgs) args: ListArgs, @Ctx() ctx: Context): Promise<AssetListPage> {
    return ctx.answers.list.page(ctx, "etfs", args);
  }

  @Authorized("fund")
  @Query(() => AssetListPage, { description: "All mutual funds, keyset-paginated" })
  listFunds(@Args(() => ListArgs) args: ListArgs, @Ctx() ctx: Context): Promise<AssetListPage> {
    return ctx.answers.list.page(ctx, "funds", args);
  }

  @Authorized("crypto")
  @Query(() => AssetListPage, { description: "All crypto assets with their pairs, keyset-paginated" })
  listCrypto(@Args(() => ListArgs) args: ListArgs, @Ctx() ctx: Context): Promise<AssetListPage> {
    return ctx.answers.list.page(ctx, "crypto", args);
  }
}
