import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/**
 * An upstream for the endpoints this service itself never serves from a store (the Bavest ones only gateway mode
 * answers): a loopback server that answers recorded answers, since a second instance of this service would answer
 * them NOT_AVAILABLE. Each answer is the Bavest Python SDK's own test fixture for that endpoint (its tests/data.py,
 * copied to test/fixtures/bavest-sdk/, README there), answered to the request the SDK records it for:
 * - an endpoint of one security answers its fixture to `{symbol: "AAPL"}` (the symbol of the SDK's fixtures and
 *   examples) and 404 NOT_FOUND, in this contract's error body, to any other identifier;
 * - an endpoint of a time range, and `news`, answer their fixture to any body.
 * It checks the key as a Bavest-compatible API does: another key is 401.
 */
export interface RecordedUpstream {
  url: string;
  key: string;
  /** The bodies it received, per path (`/v0/stock/news`), as parsed JSON. */
  received(path: string): unknown[];
  close(): Promise<void>;
}

/** A recorded endpoint: its fixture file, and whether the recording names one security. */
export const RECORDED: Readonly<Record<string, { fixture: string; security: boolean }>> = {
  "stock/news": { fixture: "stock-news", security: true },
  "stock/esg": { fixture: "stock-esg", security: true },
  "stock/earning_call_transacript": { fixture: "stock-earning-call-transcript", security: true },
  "stock/ipo/prospectus": { fixture: "stock-ipo-prospectus", security: false },
  "stock/analyst_estimates": { fixture: "stock-analyst-estimates", security: true },
  "calender/economics": { fixture: "calender-economics", security: false },
  sentiment: { fixture: "sentiment", security: true },
  "sentiment/social": { fixture: "sentiment-social", security: true },
  news: { fixture: "news", security: false },
};

const FIXTURES = join(__dirname, "..", "fixtures", "bavest-sdk");

/** The Python SDK's fixture for `endpoint`, as JSON. */
export function recordedAnswer(endpoint: string): Record<string, unknown> {
  const r = RECORDED[endpoint];
  if (!r) throw new Error(`no recorded answer for ${endpoint}`);
  return JSON.parse(readFileSync(join(FIXTURES, `${r.fixture}.json`), "utf8")) as Record<string, unknown>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startRecordedUpstream(key = "recorded-upstream-key-0123456789"): Promise<RecordedUpstream> {
  const received = new Map<string, unknown[]>();
  const server: Server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const path = (req.url ?? "").split("?")[0]!;
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      const error = (status: number, code: string, message: string) =>
        send(status, { statusCode: status, error: status === 401 ? "Unauthorized" : "Not Found", code, message });
      if (req.headers["x-api-key"] !== key) return error(401, "UNAUTHENTICATED", "invalid API key");
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      received.set(path, [...(received.get(path) ?? []), body]);
      const endpoint = /^\/v[01]\/(.+)$/.exec(path)?.[1];
      const recorded = endpoint === undefined ? undefined : RECORDED[endpoint];
      if (req.method !== "POST" || !recorded || endpoint === undefined) return error(404, "NOT_FOUND", "not found");
      if (recorded.security && !(Object.keys(body).length === 1 && body.symbol === "AAPL")) {
        return error(404, "NOT_FOUND", `no security found for ${JSON.stringify(Object.values(body)[0])}`);
      }
      send(200, recordedAnswer(endpoint));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    key,
    received: (path) => received.get(path) ?? [],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
