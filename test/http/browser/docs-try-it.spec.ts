import { createServer } from "node:http";
import type { Browser, Page } from "playwright-core";
import type { OpenApiDocument } from "../../../src/http/openapi/openapi.document";
import { describeWithChromium, launchChromium } from "../../helpers/chromium";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { listen } from "../../helpers/http";

/**
 * /docs as a reader uses it, in headless Chromium: Authorize with a key, then "Try it out" and "Execute" exactly as
 * prefilled, on one POST and one GET of every tag (a body sent, and query parameters sent) and on every endpoint past
 * its removal day, which answers its documented 404 `ENDPOINT_REMOVED`. That every operation's example answers 200
 * is test/http/openapi/openapi.examples.spec.ts's, without a browser: Swagger UI takes about 2 s of Chromium's time
 * to open each operation of this document, so clicking all of them would take minutes per run. One page serves the
 * whole run; each operation is closed again once it has answered, so the page stays small.
 */

type Json = Record<string, unknown>;

const describeBrowser = describeWithChromium("the /docs Try it out run");

describeBrowser("/docs: Try it out", () => {
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
    // The screener's index is built by its first call, which answers BUSY with Retry-After past 5 s: on a run whose
    // cores Chromium and another suite share, that call can be the page's. Built here, as a client told to come
    // back would, so the page's call is the one a reader makes on a running service.
    for (let i = 0; i < 60; i++) {
      const res = await t.post("/v1/screener", { query: [{ metric: "ev", operator: "gt", value: 0 }], limit: 1 });
      if (res.status === 200) break;
      expect(res.body.code).toBe("BUSY");
      await new Promise((r) => setTimeout(r, 1_000));
    }
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

  it("Execute answers 200 as prefilled on a POST and a GET of each tag (removed, gateway-only: 404)", async () => {
    const expected: string[] = [];
    const tried: { label: string; tag: string; operationId: string }[] = [];
    const taken = new Set<string>();
    for (const [path, item] of Object.entries(served.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, Json>)) {
        const removed = op["x-removed-on"] !== undefined;
        // An endpoint only gateway mode serves answers its documented 404 NOT_AVAILABLE over the store.
        const gatewayOnly = op["x-gateway-only"] === true;
        const tag = (op.tags as string[])[0]!;
        const kind = `${tag} ${method}`;
        if (!removed && taken.has(kind)) continue;
        if (!removed) taken.add(kind);
        const label = `${method.toUpperCase()} ${path}`;
        tried.push({ label, tag, operationId: op.operationId as string });
        expected.push(`${label} ${removed ? "404 ENDPOINT_REMOVED" : gatewayOnly ? "404 NOT_AVAILABLE" : "200"}`);
      }
    }
    // Both kinds are tried, and every tag.
    expect(new Set([...taken].map((k) => k.split(" ")[1]))).toEqual(new Set(["post", "get"]));
    expect(taken.size).toBeGreaterThanOrEqual((served.tags as unknown[]).length);

    const seen: string[] = [];
    const large: string[] = [];
    let colouredSmall = 0;
    const filter = page.locator(".operation-filter-input");
    for (const { label, tag, operationId } of tried) {
      // Past some 130 operations Swagger UI renders only those near the viewport: a reader scrolls or filters, and
      // so does the test, by the operation's tag, then finds its block by the id Swagger UI gives it.
      if ((await filter.inputValue()) !== tag) await filter.fill(tag);
      const block = page.locator(`[id="operations-${tag}-${operationId}"]`);
      await block.waitFor({ timeout: 20_000 });
      // A click event on each control, as a person's click delivers it, without waiting for the page to settle
      // between them (Playwright's checks before each click made the run several times slower).
      await block.locator(".opblock-summary-control").dispatchEvent("click");
      await block.locator(".try-out__btn").dispatchEvent("click");
      await block.locator("button.execute").dispatchEvent("click");
      const answer = block.locator(".responses-wrapper .live-responses-table tbody");
      await answer.locator(".response-col_status").waitFor({ timeout: 20_000 });
      const code = ((await answer.locator(".response-col_status").textContent()) ?? "").trim();
      const body = code === "200" ? "" : ((await answer.textContent()) ?? "");
      // Past 64 KB an answer is shown as plain text: colouring it token by token kept the tab busy for a minute.
      const shown = await answer
        .locator(".response-col_description pre")
        .first()
        .evaluate((pre) => ({ length: pre.textContent?.length ?? 0, coloured: pre.querySelectorAll("span").length }));
      if (shown.length > 65_536) large.push(`${label} ${shown.coloured} coloured`);
      else if (code === "200") colouredSmall += shown.coloured > 0 ? 1 : 0;
      seen.push(`${label} ${code}${code === "200" ? "" : ` ${/"code": "([A-Z_]+)"/.exec(body)?.[1] ?? body}`}`);
      // Closed again: dozens of open operations with their answers would make every later step slower.
      await block.locator(".opblock-summary-control").dispatchEvent("click");
    }
    expect(seen.sort()).toEqual(expected.sort());
    // The calendar's answer over the test store is some 500 KB as shown; smaller answers keep their colours.
    expect(large).toContain("POST /v1/calender/earnings 0 coloured");
    expect(large.every((l) => l.endsWith(" 0 coloured"))).toBe(true);
    expect(colouredSmall).toBeGreaterThan(10);
  }, 600_000);
});
