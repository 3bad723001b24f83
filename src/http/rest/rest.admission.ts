import { TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from "graphql";
import type { ComplexityEstimator } from "graphql-query-complexity";
import type { Context } from "../http.context";
import { InvalidArgumentError } from "../../platform/errors";
import { HEAVY_COST, heavyGate } from "../../platform/quotas/quota.heavy";
import { COST_UNIT, costEstimator, fieldsCost, metricsConversions } from "../graphql/graphql.operation-limits";
import type { RouteEntry } from "./rest.route";

/** No heavy slot (undefined), the release of one, or a promise of it while the call waits in line for one. */
export type Admitted = (() => void) | Promise<() => void> | undefined;

/**
 * What REST calls cost under the /graphql cost model, and the per-key bound on heavy operations they share with
 * /graphql (quota.heavy.ts). Bulk is priced as one operation plus N items (each its fields and COST_UNIT.bulkItem)
 * and refused above MDG_GRAPHQL_MAX_COST. A single call is
 * priced only when its entry's operation reads a range (candles, ETF metrics): its cost then grows with the range
 * asked, and a key's many concurrent ten-year metrics calls are as heavy as one bulk of them. A single call is never
 * refused for its cost (REST served such ranges before the cost model priced them); it only takes a heavy slot.
 * Entries without a range cost the same every call and are never heavy, so the hot path (quotes) prices nothing.
 */
export class RestAdmission {
  private estimator: ComplexityEstimator | undefined;
  private readonly ranged = new WeakMap<RouteEntry, boolean>();

  constructor(private readonly schema: GraphQLSchema) {}

  /**
   * Prices a bulk call; throws INVALID_ARGUMENT over the limit; the answer releases a heavy slot, if one was taken
   * (a promise of it while the call waits for the process's heavy capacity, rejected with BUSY after the wait).
   */
  admitBulk(entry: RouteEntry, n: number, variables: Record<string, unknown>, ctx: Context): Admitted {
    const each = this.fieldsCost(entry, variables, ctx) + COST_UNIT.bulkItem;
    const once = this.operationCost(entry, variables, ctx);
    const cost = once + each * n;
    const limit = ctx.config.graphql.maxCost;
    if (cost > limit) {
      throw new InvalidArgumentError(
        `symbols: this call costs ${cost} (${once} + ${n} × ${each} for ${entry.path}); ` +
          `at most ${limit} is allowed (MDG_GRAPHQL_MAX_COST); send fewer symbols or a shorter range`,
        [{ field: "symbols", issue: `cost ${cost} over the limit ${limit}` }],
      );
    }
    return this.slot(cost, ctx);
  }

  /** Takes a heavy slot for a single call of a ranged entry when its range makes it heavy. */
  admitSingle(entry: RouteEntry, variables: Record<string, unknown>, ctx: Context): Admitted {
    if (!this.readsRange(entry)) return undefined;
    return this.slot(this.operationCost(entry, variables, ctx) + this.fieldsCost(entry, variables, ctx), ctx);
  }

  /** What the call costs once, whatever its items: the operation, and the conversions of its ETF metrics. */
  private operationCost(entry: RouteEntry, variables: Record<string, unknown>, ctx: Context): number {
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    return COST_UNIT.operation + metricsConversions(entry.operation as DocumentNode, variables, now);
  }

  private fieldsCost(entry: RouteEntry, variables: Record<string, unknown>, ctx: Context): number {
    const estimator = (this.estimator ??= costEstimator(this.schema, ctx.config.sizes.searchResults));
    return fieldsCost(this.schema, estimator, entry.operation as DocumentNode, variables, ctx);
  }

  private slot(cost: number, ctx: Context): Admitted {
    if (cost < HEAVY_COST || !ctx.principal) return undefined;
    return heavyGate(ctx.config).acquire(ctx.principal.keyId);
  }

  /**
   * Whether the entry's operation selects a series over a date range (a field taking `from` and `resolution`:
   * candles, ETF metrics). Read from the schema's field definitions, not from field names: a quote's `metrics` is
   * no range. Once per entry.
   */
  readsRange(entry: RouteEntry): boolean {
    let known = this.ranged.get(entry);
    if (known === undefined) {
      let ranged = false;
      const typeInfo = new TypeInfo(this.schema);
      visit(
        entry.operation as DocumentNode,
        visitWithTypeInfo(typeInfo, {
          Field() {
            const args = typeInfo.getFieldDef()?.args ?? [];
            if (args.some((a) => a.name === "from") && args.some((a) => a.name === "resolution")) ranged = true;
          },
        }),
      );
      this.ranged.set(entry, (known = ranged));
    }
    return known;
  }
}
