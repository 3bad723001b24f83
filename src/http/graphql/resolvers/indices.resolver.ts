import { Args, Authorized, Ctx, Query, Resolver } from "type-graphql";
import type { Context } from "../../http.context";
import { IndexConstituents, IndexConstituentsArgs } from "../../../domain/indices/indices.types";

@Resolver()
export class IndicesResolver {
  @Authorized("stock")
  @Query(() => IndexConstituents, {
    description: "Members of an index with their weights",
    deprecationReason: "REST /v0/index/constituents was removed on 2024-05-01; kept in GraphQL for existing clients",
  })
  indexConstituents(
    @Args(() => IndexConstituentsArgs) args: IndexConstituentsArgs,
    @Ctx() ctx: Context,
  ): Promise<IndexConstituents> {
    return ctx.answers.indices.constituents(ctx, args.symbol);
  }
}
