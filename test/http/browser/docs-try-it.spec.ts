import { createServer } from "node:http";
import type { Browser, Page } from "playwright-core";
import type { OpenApiDocument } from "../../../src/http/openapi/openapi.document";
import { describeWithChromium, launchChromium } from "../../helpers/chromium";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { listen } from "../../helpers/http";

/**
 * /docs as a reader uses it, in headless Chromium: Authorize with a key, then on every operation "Try it out" and
 * "Execute" exactly as prefilled. Each answers 200; an endpoint past its removal day answers its documented 404
 * `ENDPOINT_REMOVED` (no request can make it answer 200). One page serves the whole run; each operation is closed
 * again once it has answered, so the page stays small.
 */

type Json = Record<string, unknown>;

const describeBrowser = describeWithChromium("the /docs Try it out run");

describeBrowser("/docs: Try it out on every operation", () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  let base: string;
  let browser: Browser;
  let page: Page;
  let served: OpenApiDocument;

  beforeAll(async () => {
    t = await createTestApp();
    server = await listen(createServer(t.app));
    base = `http://127.0.0.1:${server.port}`;
    served = (await t.http.get("/openapi.json")).body as OpenApiDocument;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${base}/docs`, { waitUntil: "load" });
    await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await t?.close();
  });

  it("the Authorize dialog says where the local key is, and takes the key", async () => {
    await page.locator(".auth-wrapper .authorize").click();
    const dialog = page.locator(".modal-ux");
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("data/dev-key");
    await dialog.locator("input").first().fill(BOOTSTRAP_KEY);
    await dialog.locator("button.authorize").click();
    await dialog.locator("button.btn-done").click();
    await dialog.waitFor({ state: "detached" });
  });

  it("Execute answers 200 on every operation as prefilled (a removed endpoint: ENDPOINT_REMOVED)", async () => {
    const expected: string[] = [];
    for (const [path, item] of Object.entries(served.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, Json>)) {
        const removed = op["x-removed-on"] !== undefined;
        expected.push(`${method.toUpperCase()} ${path} ${removed ? "404 ENDPOINT_REMOVED" : "200"}`);
      }
    }

    const seen: string[] = [];
    const blocks = page.locator(".opblock");
    // Each block's method and path, read in one go.
    const labels = await blocks.evaluateAll((els) =>
      els.map((el) => {
        const text = (selector: string) =>
          (el.querySelector(selector)?.textContent ?? "").replace(/\u200b/g, "").trim();
        return `${text(".opblock-summary-method")} ${text(".opblock-summary-path, .opblock-summary-path__deprecated")}`;
      }),
    );
    for (let i = 0; i < labels.length; i++) {
      const block = blocks.nth(i);
      // A click event on each control, as a person's click delivers it, without waiting for the page to settle
      // between them (Playwright's checks before each click made the run several times slower).
      await block.locator(".opblock-summary-control").dispatchEvent("click");
      await block.locator(".try-out__btn").dispatchEvent("click");
      await block.locator("button.execute").dispatchEvent("click");
      const answer = block.locator(".responses-wrapper .live-responses-table tbody");
      await answer.locator(".response-col_status").waitFor({ timeout: 20_000 });
      const code = ((await answer.locator(".response-col_status").textContent()) ?? "").trim();
      const body = code === "200" ? "" : ((await answer.textContent()) ?? "");
      seen.push(`${labels[i]} ${code}${code === "200" ? "" : ` ${/"code": "([A-Z_]+)"/.exec(body)?.[1] ?? body}`}`);
      // Closed again: 62 open operations with their answers would make every later step slower.
      await block.locator(".opblock-summary-control").dispatchEvent("click");
    }
    expect(seen.sort()).toEqual(expected.sort());
  }, 600_000);
});
