import {
  Args,
  ArgsType,
  Authorized,
  Ctx,
  Field,
  Float,
  InputType,
  Int,
  ObjectType,
  Query,
  Resolver,
} from "type-graphql";
import type { Context } from "../../http.context";
import {
  SCREENER_DEFAULT_LIMIT,
  SCREENER_MAX_LIMIT,
  type ScreenerHit as ScreenerHitAnswer,
} from "../../../domain/screener/screener.service";
import { SCREENER_METRICS, SCREENER_OPERATORS } from "../../../domain/screener/screener.index";

@InputType({ description: "A condition: the metric's value compared with value" })
export class ScreenerCondition {
  @Field(() => String, { description: `One of ${SCREENER_METRICS.join(", ")}` })
  metric: string;

  @Field(() => String, { description: `One of ${SCREENER_OPERATORS.join(", ")}` })
  operator: string;

  @Field(() => Float, { description: "The number compared with" })
  value: number;
}

@InputType({ description: "A sort key" })
export class ScreenerSort {
  @Field(() => String, { description: "A metric, as a condition names it" })
  metric: string;

  @Field(() => String, { nullable: true, description: "asc (default) or desc" })
  order?: string | null;
}

@ArgsType()
export class ScreenerArgs {
  @Field(() => [ScreenerCondition], { description: "Every condition must hold (at least one)" })
  query: ScreenerCondition[];

  @Field(() => [ScreenerSort], {
    nullable: true,
    description: "Sort keys, first first; default: the narrowest condition's metric, ascending",
  })
  sort?: ScreenerSort[] | null;

  @Field(() => Int, { nullable: true, description: "Stocks to skip; default 0" })
  offset?: number | null;

  @Field(() => Int, {
    nullable: true,
    description: `Stocks to answer at most; default ${SCREENER_DEFAULT_LIMIT}, at most ${SCREENER_MAX_LIMIT}`,
  })
  limit?: number | null;
}

@ObjectType({ description: "A metric's value for a stock" })
export class ScreenerValue {
  @Field(() => String, { description: "The metric, as the query named it" })
  metric: string;

  @Field(() => Float, { description: "Its value (a fraction for ratios; ev in the reporting currency)" })
  value: number;
}

@ObjectType({ description: "A stock the screener found, with the values of the metrics the query and sort name" })
export class ScreenerHit implements ScreenerHitAnswer {
  @Field(() => String, { description: "Symbol of the stock's primary listing" })
  symbol: string;

  @Field(() => String, { description: "Name of the company" })
  name: string;

  @Field(() => String, { nullable: true, description: "ISIN; null where unknown" })
  isin: string | null;

  @Field(() => [ScreenerValue], { description: "The metrics' values, conditions' first, then sort keys'" })
  values: ScreenerHitAnswer["values"];
}

@Resolver()
export class ScreenerResolver {
  @Authorized("stock")
  @Query(() => [ScreenerHit], {
    description: "Stocks whose metrics meet every condition, over an index of every stock's metrics (screener)",
  })
  screener(@Args(() => ScreenerArgs) args: ScreenerArgs, @Ctx() ctx: Context): Promise<ScreenerHitAnswer[]> {
    return ctx.answers.stock.screener(ctx, args);
  }
}
