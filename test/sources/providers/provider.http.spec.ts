import { ProviderHttp, ProviderHttpError, retryAfterMs, scrub } from "../../../src/sources/providers/provider.http";
import { unzipFirst, ZipFormatError } from "../../../src/sources/providers/provider.zip";
import { type ProviderServer, serve, startProviderServer, zipOf } from "../../helpers/providers";

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(() => server.close());
beforeEach(() => server.hits.clear());

const KEY = "k3y-0123456789abcdef";

function client(retries = 2): ProviderHttp {
  return new ProviderHttp(
    {
      provider: "demo",
      baseUrl: `${server.url}/base/`,
      timeoutMs: 5_000,
      retries,
      retryBaseMs: 1,
      perSecond: 1_000,
      secrets: [KEY],
    },
    { random: () => 0.5 },
  );
}

async function failure(p: Promise<unknown>): Promise<ProviderHttpError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ProviderHttpError);
  return e as ProviderHttpError;
}

describe("ProviderHttp", () => {
  it("calls the path under the base URL, a mirror's base path kept", async () => {
    server.route("/base/data.json", serve('{"ok":true}', "application/json"));
    const res = await client().get("/data.json", { q: "1" });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('{"ok":true}');
    expect(server.hits.get("/base/data.json")).toBe(1);
  });

  it("retries a 5xx and a dropped connection, then answers", async () => {
    server.route("/base/flaky", (res, hit, req) => {
      if (hit === 0) {
        res.writeHead(503);
        res.end();
      } else if (hit === 1) req.socket.destroy();
      else serve("fine", "text/plain")(res, hit, req);
    });
    const res = await client(2).get("/flaky");
    expect(res.body.toString()).toBe("fine");
    expect(server.hits.get("/base/flaky")).toBe(3);
  });

  it("fails a 4xx at once, and never shows a key, whether in the query string or elsewhere", async () => {
    server.route("/base/secret", (res) => {
      res.writeHead(403);
      res.end(KEY);
    });
    const e = await failure(client().get("/secret", { apikey: KEY, token: "t0ken-value", symbol: "AAPL" }));
    expect(server.hits.get("/base/secret")).toBe(1);
    expect(e.status).toBe(403);
    expect(e.message).toBe(
      "demo: GET /base/secret?apikey=***&token=***&symbol=AAPL: answered 403 (a key or a User-Agent refused?)",
    );
    expect(e.message).not.toContain("t0ken-value");
  });

  it("gives up on a provider asking to wait longer than it waits, saying how long", async () => {
    server.route("/base/later", (res) => {
      res.writeHead(429, { "retry-after": "3600" });
      res.end();
    });
    const e = await failure(client().get("/later"));
    expect(e.message).toBe(
      "demo: GET /base/later: 429 Too Many Requests, asking to wait 3600 s (longer than this client waits)",
    );
    expect(server.hits.get("/base/later")).toBe(1);
  });

  it("says how many attempts a provider that keeps failing got", async () => {
    server.route("/base/down", (res) => {
      res.writeHead(502);
      res.end();
    });
    const e = await failure(client(1).get("/down"));
    expect(e.message).toBe("demo: GET /base/down: answered 502 after 2 attempts");
  });
});

describe("ProviderHttp's waits", () => {
  /** A client on a clock that never moves, recording every wait it asks for instead of waiting. */
  function recording(perSecond: number, retries = 0) {
    const waits: number[] = [];
    const http = new ProviderHttp(
      { provider: "demo", baseUrl: server.url, timeoutMs: 5_000, retries, retryBaseMs: 400, perSecond },
      { random: () => 0.5, now: () => 1_000_000, sleep: async (ms) => void waits.push(ms) },
    );
    return { http, waits };
  }

  it("keeps to the rate in any second: 10 a second lets 10 go at once, the 11th a second later", async () => {
    server.route("/ok", serve("ok", "text/plain"));
    const { http, waits } = recording(10);
    await Promise.all(Array.from({ length: 12 }, () => http.get("/ok")));
    expect(waits).toEqual([1_000, 1_000]);
    expect(server.hits.get("/ok")).toBe(12);
    // Under one a second, one call a turn: half a call a second is one every 2 s.
    const slow = recording(0.5);
    await Promise.all([slow.http.get("/ok"), slow.http.get("/ok"), slow.http.get("/ok")]);
    expect(slow.waits).toEqual([2_000, 4_000]);
  });

  it("waits a 429's Retry-After exactly, and a 5xx's full-jitter backoff", async () => {
    server.route("/busy", (res, hit, req) => {
      if (hit === 0) res.writeHead(429, { "retry-after": "2" }).end();
      else if (hit === 1) res.writeHead(500).end();
      else serve("ok", "text/plain")(res, hit, req);
    });
    const { http, waits } = recording(1_000, 2);
    await http.get("/busy");
    // The 2 s asked, then the second retry's backoff, half (the jitter drawn) of min(max, 400 ms × 2); a thousand
    // calls a second leave the three attempts no turn to wait for.
    expect(waits).toEqual([2_000, 400]);
  });
});

describe("scrub and Retry-After", () => {
  it("hides key-like query parameters and every given secret", () => {
    expect(scrub(`GET /x?api_key=abc&apiKey=def&page=2&access_token=ghi#f`)).toBe(
      "GET /x?api_key=***&apiKey=***&page=2&access_token=***#f",
    );
    expect(scrub(`refused ${KEY} at /y?k=${KEY}`, [KEY])).toBe("refused *** at /y?k=***");
    // A message scrubbed twice (the client's, then the scheduler's) keeps its punctuation.
    const once = scrub("tiingo: GET /p?startDate=2023-01-14&token=t0k3n: answered 503");
    expect(once).toBe("tiingo: GET /p?startDate=2023-01-14&token=***: answered 503");
    expect(scrub(once)).toBe(once);
  });

  it("reads seconds and HTTP dates", () => {
    const now = Date.parse("2026-11-20T12:00:00Z");
    expect(retryAfterMs("7", now)).toBe(7_000);
    expect(retryAfterMs("Fri, 20 Nov 2026 12:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("-5", now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe("unzipFirst", () => {
  const csv = Buffer.from("Date,USD,\n2022-07-07,1.018,\n");
  it("reads a deflated and a stored entry", () => {
    expect(unzipFirst(zipOf("a.csv", csv)).data.toString()).toBe(csv.toString());
    expect(unzipFirst(zipOf("a.csv", csv, 0))).toEqual({ name: "a.csv", data: csv });
  });

  it("refuses what is not a ZIP, or a damaged one", () => {
    expect(() => unzipFirst(Buffer.from("<html></html>"))).toThrow(ZipFormatError);
    const stored = zipOf("a.csv", csv, 0);
    stored[30 + 5 + 3] ^= 0x01;
    expect(() => unzipFirst(stored)).toThrow("a.csv: damaged (size or CRC-32)");
    expect(() => unzipFirst(zipOf("a.csv", csv).subarray(0, 40))).toThrow(ZipFormatError);
  });
});
