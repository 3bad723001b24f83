import "reflect-metadata";
import { parseBody } from "../../../src/http/rest/rest.body";
import { ROUTES } from "../../../src/http/rest/rest.routes";

/**
 * parseBody takes `{"symbol": …}` alone without zod for the single-security routes (src/http/rest/rest.body.ts): for
 * every route and every body here, it must answer what the route's zod schema answers, refusals included.
 */
describe("parseBody of a body naming a symbol only", () => {
  const bodies: unknown[] = [
    { symbol: "FO.PA" },
    { symbol: "  btc-usd " },
    { symbol: "x".repeat(64) },
    { symbol: ` ${"x".repeat(64)} ` },
    { symbol: "x".repeat(65) },
    { symbol: "" },
    { symbol: "   " },
    { symbol: 1 },
    { symbol: null },
    { symbol: "A", currency: "usd" },
    { symbol: "A", extra: true },
    { isin: "US0378331005" },
    JSON.parse('{"__proto__": {"symbol": "A"}}'),
    Object.create({ symbol: "A" }),
    {},
  ];

  const outcome = (f: () => unknown) => {
    try {
      return { ok: f() };
    } catch (e) {
      return { error: (e as Error).message, details: (e as { details?: unknown }).details };
    }
  };

  it("runs no zod for the quote's and the ETF profile's usual body", () => {
    for (const path of ["quote", "etf/profile"]) {
      const route = ROUTES.find((r) => r.path === path)!;
      const spy = jest.spyOn(route.body, "safeParse");
      expect(parseBody(route.body, { symbol: "FO.PA" })).toMatchObject({ symbol: "FO.PA", isin: null });
      expect(spy).not.toHaveBeenCalled();
      spy.mockRestore();
    }
  });

  for (const route of ROUTES) {
    it(`answers for /${route.path} what its schema answers`, () => {
      for (const body of bodies) {
        const viaZod = outcome(() => {
          const r = route.body.safeParse(body);
          if (r.success) return r.data;
          // parseBody's refusal, for the comparison: its first issue's message is enough to tell them apart.
          throw new Error(JSON.stringify(r.error.issues.map((i) => [i.path, i.message])));
        });
        const viaParseBody = outcome(() => parseBody(route.body, body));
        if ("ok" in viaZod) expect(viaParseBody).toEqual(viaZod);
        else expect(viaParseBody).toHaveProperty("error");
      }
    });
  }
});
