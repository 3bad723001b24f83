import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { describeWithChromium, launchChromium } from "../../helpers/chromium";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { openApiDocument } from "../../helpers/openapi";
import { createContext } from "../../../src/http/http.context";
import { ROW_STORE_ANSWERS } from "../../../src/domain/answers";
import type { Quote } from "../../../src/domain/quote/quote.types";

/**
 * GraphiQL and the API reference page in a real browser: Debian's headless
 * Chromium driven by playwright-core (no browser download). `.ci/run`
 * installs chromium when it is missing; outside CI, a machine without it skips
 * these tests and says why. Screenshots go to test-artifacts/screenshots/.
 */

const SCREENSHOTS = join(__dirname, "..", "..", "..", "test-artifacts", "screenshots");

const describeBrowser = describeWithChromium("the browser tests (GraphiQL, /docs)");

describeBrowser("in a real browser (headless Chromium)", () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    t = await createTestApp();
    server = createServer(t.app);
    // The WebSocket doors, as main.ts serves them: GraphiQL runs subscriptions over /graphql's.
    server.on("upgrade", t.upgrade);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await t?.close();
  });

  /**
   * A page that records every URL it asks for, and every script error and
   * console error (a CSP violation shows up there). HTTP error statuses of its
   * own requests are reported by the browser as console errors too; those are
   * left to the assertions on the answers themselves.
   */
  async function openPage(): Promise<{ page: Page; requested: string[]; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const requested: string[] = [];
    const errors: string[] = [];
    page.on("request", (r) => requested.push(r.url()));
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    return { page, requested, errors };
  }

  /** Replaces the whole text of the CodeMirror editor inside `container` as a person would: click, select all, type. */
  async function typeInto(page: Page, container: string, text: string): Promise<void> {
    const editor = page.locator(`${container} .CodeMirror`).first();
    await editor.click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    // insertText types the characters without the key events that make the editor close brackets itself.
    await page.keyboard.insertText(text);
  }

  it("GraphiQL: sets the key in the headers editor, runs a query and shows the data", async () => {
    const { page, requested, errors } = await openPage();
    // Every schema load (GraphiQL's introspection query): its status and the key it carried.
    const schemaLoads: { status: number; key: string | undefined }[] = [];
    const isSchemaLoad = (url: string, body: string | null) =>
      url === `${base}/graphql` && (body?.includes("IntrospectionQuery") ?? false);
    page.on("response", (r) => {
      if (isSchemaLoad(r.url(), r.request().postData()))
        schemaLoads.push({ status: r.status(), key: r.request().headers()["x-api-key"] });
    });
    await page.goto(`${base}/graphql`, { waitUntil: "load" });
    await page.locator(".graphiql-container").waitFor({ timeout: 20_000 });

    // The headers tab is open by default (see src/http/graphql/graphiql.ts); its editor is the visible one.
    await typeInto(
      page,
      ".graphiql-editor-tool .graphiql-editor:not(.hidden)",
      JSON.stringify({ "x-api-key": BOOTSTRAP_KEY }),
    );
    // With the key in place, re-fetch the schema as the page's comment tells a person to (Shift+Ctrl+R).
    const keyedLoad = page.waitForResponse(
      (r) => isSchemaLoad(r.url(), r.request().postData()) && r.request().headers()["x-api-key"] === BOOTSTRAP_KEY,
    );
    await page.locator('button[aria-label="Re-fetch GraphQL schema"]').click();
    await keyedLoad;
    await typeInto(
      page,
      ".graphiql-query-editor",
      '{\n  quote(symbol: "BTC-USD") {\n    symbol\n    c\n    currency\n    historicalPrice { fiftyDays }\n  }\n}',
    );
    await page.locator(".graphiql-execute-button").click();

    const result = page.locator(".graphiql-response .CodeMirror");
    await page.locator(".graphiql-response", { hasText: '"BTC-USD"' }).waitFor({ timeout: 20_000 });
    const text = (await result.textContent()) ?? "";
    expect(text).toContain('"quote"');
    expect(text).toContain('"currency": "USD"');
    expect(text).not.toContain("errors");
    await page.screenshot({ path: join(SCREENSHOTS, "graphiql.png") });

    expect(errors).toEqual([]);
    expect(requested.filter((u) => !u.startsWith(base) && !u.startsWith("data:"))).toEqual([]);
    // Before the key is typed the schema load is refused (401, as every /graphql request without a key); the re-fetch
    // carries the key and loads it (autocompletion and the docs explorer work): introspection is within the limits.
    expect(schemaLoads.filter((l) => l.key === undefined).map((l) => l.status)).toEqual(expect.arrayContaining([401]));
    expect(schemaLoads.every((l) => (l.key === undefined ? l.status === 401 : l.status === 200))).toBe(true);
    expect(schemaLoads).toContainEqual({ status: 200, key: BOOTSTRAP_KEY });
    await page.close();
  });

  it("GraphiQL: runs a subscription over the WebSocket with the key, shows each change, and stops it", async () => {
    const { page, requested, errors } = await openPage();
    const sockets: string[] = [];
    page.on("websocket", (w) => sockets.push(w.url()));
    await page.goto(`${base}/graphql`, { waitUntil: "load" });
    await page.locator(".graphiql-container").waitFor({ timeout: 20_000 });
    await typeInto(
      page,
      ".graphiql-editor-tool .graphiql-editor:not(.hidden)",
      JSON.stringify({ "x-api-key": BOOTSTRAP_KEY }),
    );
    await typeInto(
      page,
      ".graphiql-query-editor",
      'subscription {\n  quoteUpdated(symbols: ["BTC-USD"]) {\n    symbol\n    simulated\n    quote { c }\n  }\n}',
    );
    await page.locator(".graphiql-execute-button").click();
    const until = async (ok: () => boolean) => {
      const deadline = Date.now() + 20_000;
      while (!ok()) {
        if (Date.now() > deadline) throw new Error("timed out");
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until(() => t.live.hub.size === 1);
    const principal = await t.apiKeys.authenticate(BOOTSTRAP_KEY);
    const base_ = await ROW_STORE_ANSWERS.quote.get(createContext(t.deps, "test", principal), { symbol: "BTC-USD" });
    const c = Math.round(base_.c * 2 * 100) / 100;
    const moved = Object.assign(Object.create(Object.getPrototypeOf(base_) as object) as Quote, base_, { c });
    t.live.hub.publish({ symbol: "BTC-USD", quote: moved, origin: "store" });
    await page.locator(".graphiql-response", { hasText: String(c) }).waitFor({ timeout: 20_000 });
    const text = (await page.locator(".graphiql-response .CodeMirror").textContent()) ?? "";
    expect(text).toContain('"quoteUpdated"');
    expect(text).toContain('"simulated": false');
    expect(text).not.toContain("errors");
    await page.screenshot({ path: join(SCREENSHOTS, "graphiql-subscription.png") });
    // The execute button stops a running subscription; the server ends it at once.
    await page.locator(".graphiql-execute-button").click();
    await until(() => t.live.hub.size === 0);

    expect(errors).toEqual([]);
    expect(requested.filter((u) => !u.startsWith(base) && !u.startsWith("data:"))).toEqual([]);
    expect(sockets).toEqual([`${base.replace("http:", "ws:")}/graphql`]);
    await page.close();
  });

  it("/docs: renders the OpenAPI document and lists the endpoints of both versions", async () => {
    const { page, requested, errors } = await openPage();
    await page.goto(`${base}/docs`, { waitUntil: "load" });
    await page.locator(".opblock").first().waitFor({ timeout: 20_000 });

    // One block per operation: status and quota answer GET as well as POST. Past some 130 operations Swagger UI
    // renders only those near the viewport, so the list is read tag by tag through the filter box, as a reader
    // narrows it.
    const doc = openApiDocument();
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.values(item).map((op) => ({ path, tag: (op.tags as string[])[0]! })),
    );
    const listed: string[] = [];
    let deprecated = 0;
    for (const tag of new Set(ops.map((o) => o.tag))) {
      await page.locator(".operation-filter-input").fill(tag);
      const blocks = page.locator(`.opblock[id^="operations-${tag}-"]`);
      const expected = ops.filter((o) => o.tag === tag).length;
      const deadline = Date.now() + 20_000;
      while ((await blocks.count()) !== expected && Date.now() < deadline) await page.waitForTimeout(100);
      // Swagger UI marks deprecated operations' paths with their own class.
      const paths = await blocks.locator(".opblock-summary-path, .opblock-summary-path__deprecated").allTextContents();
      listed.push(...paths.map((p) => p.replace(/\u200b/g, "").trim()));
      deprecated += await page.locator(`.opblock-deprecated[id^="operations-${tag}-"]`).count();
    }
    const paths = ops.map((o) => o.path);
    expect([...listed].sort()).toEqual([...paths].sort());
    await page.locator(".operation-filter-input").fill("");
    expect(await page.locator(".info .title").textContent()).toContain("market-data-gateway REST API");
    // /v0 and removed endpoints are shown as deprecated.
    expect(deprecated).toBeGreaterThanOrEqual(paths.filter((p) => p.startsWith("/v0/")).length);
    await page.screenshot({ path: join(SCREENSHOTS, "docs.png"), fullPage: true });

    // Open one endpoint: its request body and the 200 schema from the route table are there.
    await page.locator(".operation-filter-input").fill("ETFs");
    await page.locator("#operations-ETFs-v1EtfProfile .opblock-summary").click();
    await page.locator("#operations-ETFs-v1EtfProfile .responses-wrapper").waitFor();
    expect(await page.locator("#operations-ETFs-v1EtfProfile").textContent()).toContain("x-api-key");
    await page.locator("#operations-ETFs-v1EtfProfile").screenshot({ path: join(SCREENSHOTS, "docs-etf-profile.png") });

    expect(errors).toEqual([]);
    expect(requested.filter((u) => !u.startsWith(base) && !u.startsWith("data:"))).toEqual([]);
    await page.close();
  });
});
