import { getSchema } from "../../../src/http/graphql/schema";
import { RestAdmission } from "../../../src/http/rest/rest.admission";
import { ROUTES } from "../../../src/http/rest/rest.routes";

/**
 * Which REST entries are priced per call (rest.admission.ts): only those reading a series over a range. Every
 * other entry, the quote above all, must cost nothing extra on the hot path (the bench's REST targets rest on it).
 */
describe("REST admission", () => {
  it("prices exactly the entries that read a range: candles, ETF metrics and portfolios, never the quote", () => {
    const admission = new RestAdmission(getSchema());
    const priced = ROUTES.filter((entry) => admission.readsRange(entry)).map((entry) => entry.path);
    expect(priced.sort()).toEqual([
      "candle",
      "etf/metrics",
      "portfolio/allocation",
      "portfolio/chart",
      "portfolio/metric",
      "portfolio/metrics",
      "portfolio/price",
      "portfolio/region",
      "portfolio/sector",
      "portfolio/stats",
      "stock/candle",
    ]);
  });
});
