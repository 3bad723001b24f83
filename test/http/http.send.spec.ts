import { createServer } from "node:http";
import { sendJsonInTurns } from "../../src/http/http.send";
import { listen, send } from "../helpers/http";

/** A large answer's items serialised one per event-loop turn: the same bytes as one JSON.stringify. */
describe("sendJsonInTurns", () => {
  async function answer(body: { results: unknown[] }): Promise<{ text: string; turnsBetween: number }> {
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns++;
      if (counting) setImmediate(tick);
    };
    const server = await listen(
      createServer((_req, res) => {
        setImmediate(tick);
        void sendJsonInTurns(res, 200, body, { "x-extra": "1" }).then(() => (counting = false));
      }),
    );
    try {
      const res = await send(server.port, { method: "GET", path: "/" });
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(res.headers["x-extra"]).toBe("1");
      return { text: res.body.toString("utf8"), turnsBetween: turns };
    } finally {
      await server.close();
    }
  }

  it("writes exactly what JSON.stringify writes, keys in their order, odd items as an array holds them", async () => {
    const body = {
      endpoint: "etf/metrics",
      results: [{ a: 1, s: "x\u0000results\u0000y" }, undefined, null, "t", { toJSON: () => ({ z: [1, 2] }) }],
      after: { k: "v" },
    };
    const { text } = await answer(body);
    expect(text).toBe(JSON.stringify(body));
  });

  it("lets the event loop turn between items", async () => {
    const results = Array.from({ length: 50 }, (_, i) => ({ i, series: Array.from({ length: 100 }, (_, j) => j) }));
    const { text, turnsBetween } = await answer({ results });
    expect(JSON.parse(text)).toEqual({ results });
    expect(turnsBetween).toBeGreaterThanOrEqual(49);
  });

  it("writes an empty list as []", async () => {
    expect((await answer({ results: [] })).text).toBe('{"results":[]}');
  });
});
