import { createServer, type Server } from "node:http";
import pino from "pino";
import type { Browser, Page } from "playwright-core";
import { createHttpServer } from "../../../src/http/server/server.http";
import { describeWithChromium, launchChromium } from "../../helpers/chromium";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { listen } from "../../helpers/http";

/**
 * CORS in a real browser: a page served on one loopback port calls /graphql
 * and /v1/quote of the service on another, as a frontend on its own origin
 * does. Gated on Chromium as test/http/browser/browser.spec.ts is; Playwright
 * launches it with a fresh temporary --user-data-dir, so no cached preflight
 * or profile of an earlier run plays a part.
 */

const describeBrowser = describeWithChromium("the browser CORS tests");

/** What the page's fetch saw: the answer it could read, or the error the browser gave instead. */
type Outcome =
  | { ok: true; status: number; body: unknown; requestId: string | null; rateLimit: string | null }
  | { ok: false; error: string };

interface Service {
  t: TestApp;
  base: string;
  close(): Promise<void>;
}

async function service(corsOrigins: string | undefined): Promise<Service> {
  const t = await createTestApp({ env: corsOrigins === undefined ? {} : { MDG_CORS_ORIGINS: corsOrigins } });
  const { port, close } = await listen(createHttpServer(t.app, pino({ level: "silent" })));
  return {
    t,
    base: `http://127.0.0.1:${port}`,
    close: async () => {
      await close();
      await t.close();
    },
  };
}

describeBrowser("CORS in a real browser (headless Chromium)", () => {
  let pageServer: Server;
  let pageOrigin: string;
  let browser: Browser;
  let allowed: Service;
  let otherOrigin: Service;
  let off: Service;

  beforeAll(async () => {
    // The frontend: one empty page on its own port, hence its own origin.
    pageServer = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!doctype html><title>frontend</title><p>frontend</p>");
    });
    await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
    const address = pageServer.address();
    pageOrigin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    allowed = await service(`https://app.example.com,${pageOrigin}`);
    otherOrigin = await service("https://app.example.com");
    off = await service(undefined);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (pageServer ? pageServer.close(() => resolve()) : resolve()));
    await allowed?.close();
    await otherOrigin?.close();
    await off?.close();
  });

  async function openFrontend(): Promise<{ page: Page; console: string[] }> {
    const page = await browser.newPage();
    const messages: string[] = [];
    page.on("console", (m) => messages.push(m.text()));
    await page.goto(`${pageOrigin}/`, { waitUntil: "load" });
    return { page, console: messages };
  }

  /** fetch() run by the page itself, so the browser applies its CORS rules. */
  function call(
    page: Page,
    target: string,
    init: { method: string; headers: Record<string, string>; body?: string },
  ): Promise<Outcome> {
    return page.evaluate(
      async ({ target, init }) => {
        try {
          const res = await fetch(target, init);
          const text = await res.text();
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // Not JSON: kept as text.
          }
          return {
            ok: true as const,
            status: res.status,
            body,
            requestId: res.headers.get("x-request-id"),
            rateLimit: res.headers.get("ratelimit"),
          };
        } catch (e) {
          return { ok: false as const, error: String(e) };
        }
      },
      { target, init },
    );
  }

  const graphqlPost = (key = BOOTSTRAP_KEY) => ({
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ query: '{ quote(symbol: "BTC-USD") { id symbol currency } }' }),
  });
  const quotePost = {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": BOOTSTRAP_KEY },
    body: JSON.stringify({ symbol: "BTC-USD" }),
  };

  it("an allowed origin calls /graphql (POST, GET) and /v1/quote and reads answers and headers", async () => {
    const { page } = await openFrontend();
    const gql = await call(page, `${allowed.base}/graphql`, graphqlPost());
    expect(gql).toMatchObject({
      ok: true,
      status: 200,
      body: { data: { quote: { symbol: "BTC-USD", currency: "USD" } } },
    });
    expect((gql as { requestId: string }).requestId).toBeTruthy();
    expect((gql as { rateLimit: string }).rateLimit).toMatch(/"minute";r=\d+/);

    const query = encodeURIComponent('{ quote(symbol: "BTC-USD") { symbol } }');
    const get = await call(page, `${allowed.base}/graphql?query=${query}`, {
      method: "GET",
      headers: { "x-api-key": BOOTSTRAP_KEY },
    });
    expect(get).toMatchObject({ ok: true, status: 200, body: { data: { quote: { symbol: "BTC-USD" } } } });

    const rest = await call(page, `${allowed.base}/v1/quote`, quotePost);
    expect(rest).toMatchObject({ ok: true, status: 200, body: { symbol: "BTC-USD", currency: "USD" } });
    expect((rest as { requestId: string }).requestId).toBeTruthy();
    await page.close();
  });

  it("an allowed origin reads the error answers too: 401 and 404 with their bodies", async () => {
    const { page } = await openFrontend();
    const badKey = await call(page, `${allowed.base}/graphql`, graphqlPost("not-a-key"));
    expect(badKey).toMatchObject({
      ok: true,
      status: 401,
      body: { errors: [{ extensions: { code: "UNAUTHENTICATED" } }] },
    });
    const unknown = await call(page, `${allowed.base}/v1/nope`, quotePost);
    expect(unknown).toMatchObject({ ok: true, status: 404, body: { code: "NOT_FOUND" } });
    await page.close();
  });

  it.each([
    ["another origin is listed", () => otherOrigin],
    ["MDG_CORS_ORIGINS is unset", () => off],
  ])("the page is refused when %s", async (_why, target) => {
    const { page, console } = await openFrontend();
    for (const [path, init] of [
      ["/graphql", graphqlPost()],
      ["/v1/quote", quotePost],
    ] as const) {
      const outcome = await call(page, `${target().base}${path}`, init);
      expect(outcome.ok).toBe(false);
      expect((outcome as { error: string }).error).toMatch(/TypeError: Failed to fetch/);
    }
    expect(console.filter((m) => m.includes("blocked by CORS policy"))).toHaveLength(2);
    await page.close();
  });
});
