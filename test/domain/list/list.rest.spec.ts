import { createTestApp, type TestApp } from "../../helpers/app";
import { expectErrorBody } from "../../helpers/expect";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const LISTS = [
  ["list/stocks", "stock"],
  ["list/etfs", "etf"],
  ["list/funds", "fund"],
  ["list/crypto", "crypto"],
] as const;

describe.each(["v0", "v1"])("/%s lists", (v) => {
  it.each(LISTS)("%s pages through every %s exactly once", async (path, type) => {
    const total = (
      t.source.db.prepare(`SELECT COUNT(*) AS n FROM securities WHERE type = ?`).get(type) as { n: number }
    ).n;
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: {
        status: number;
        body: { results: { isin: string | null; symbol: string; type: string }[]; nextCursor: string | null };
      } = await t.post(`/${v}/${path}`, cursor ? { limit: 1000, cursor } : { limit: 1000 });
      expect(res.status).toBe(200);
      for (const r of res.body.results) {
        expect(r.type).toBe(type);
        seen.add(r.symbol);
      }
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor && pages < 1000);
    expect(seen.size).toBe(total);
  });

  it("lists crypto assets with both of their pairs", async () => {
    const res = await t.post(`/${v}/list/crypto`, { limit: 3 });
    expect(res.body.results).toHaveLength(3);
    for (const r of res.body.results) {
      expect(r.listings.map((l: { symbol: string }) => l.symbol.split("-")[1]).sort()).toEqual(["EUR", "USD"]);
    }
  });

  it("works with no body at all (default page size 100)", async () => {
    const res = await t.http.post(`/${v}/list/stocks`).set("x-api-key", "test-bootstrap-key-0123456789");
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(100);
    expect(typeof res.body.nextCursor).toBe("string");
  });

  it.each([{ limit: 0 }, { limit: 1001 }, { limit: 1.5 }, { limit: "10" }, { cursor: "garbage" }])(
    "answers 404 INVALID_ARGUMENT for %j",
    async (body) => {
      expectErrorBody(await t.post(`/${v}/list/etfs`, body), 404, "INVALID_ARGUMENT");
    },
  );

  it("refuses a cursor of another list", async () => {
    const page = await t.post(`/${v}/list/stocks`, { limit: 1 });
    expectErrorBody(await t.post(`/${v}/list/etfs`, { cursor: page.body.nextCursor }), 404, "INVALID_ARGUMENT");
  });
});
