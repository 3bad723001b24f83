import pino from "pino";
import { z } from "zod";
import { BulkService } from "../../../src/http/bulk/bulk.service";
import { createContext } from "../../../src/http/http.context";
import { getSchema } from "../../../src/http/graphql/schema";
import { CandleDocument } from "../../../src/http/rest/rest.operations.generated";
import { route, VERSIONS } from "../../../src/http/rest/rest.route";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/**
 * An entry whose body lets through what GraphQL cannot coerce (an Int beyond 32 bits, for the symbol OVERFLOW), as no
 * real entry does.
 */
const lenient = route({
  path: "lenient/candle",
  summary: "test only",
  versions: VERSIONS,
  scope: null,
  body: z.object({ symbol: z.string() }).transform((b) => ({
    symbol: b.symbol,
    isin: null,
    cusip: null,
    wkn: null,
    from: b.symbol === "OVERFLOW" ? 2 ** 40 : null,
    to: null,
    resolution: "D",
    currency: null,
    adjustment: null,
  })),
  operation: CandleDocument,
  shape: (d) => d.candle,
  singleSecurity: true,
});

describe("BulkService", () => {
  it("gives an item whose variables do not coerce its own 404 and answers the others", async () => {
    const service = new BulkService(getSchema(), [lenient], pino({ level: "silent" }));
    const ctx = createContext(t.deps, "req-1", await t.apiKeys.authenticate(BOOTSTRAP_KEY));
    const [stock] = t.source.db
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
          WHERE s.type = 'stock' ORDER BY s.rank LIMIT 1`,
      )
      .all() as { symbol: string }[];
    const out = await service.run(
      {
        endpoint: "lenient/candle",
        symbols: [{ symbol: stock!.symbol }, { symbol: "OVERFLOW" }, { symbol: "BTC-USD" }],
        params: {},
      },
      ctx,
      "v1",
    );
    expect(out.results.map((r) => [r.symbol, r.statusCode])).toEqual([
      [stock!.symbol, 200],
      ["OVERFLOW", 404],
      ["BTC-USD", 200],
    ]);
    expect(out.results[1]).toEqual({
      symbol: "OVERFLOW",
      statusCode: 404,
      error: expect.objectContaining({ code: "INVALID_ARGUMENT", requestId: "req-1" }),
    });
  });
});
