import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { getSchema } from "../../../src/http/graphql/schema";
import type { OpenApiDocument } from "../../../src/http/openapi/openapi.document";
import {
  DEFAULT_SAMPLE_SECURITIES,
  exampleSecurities,
  type ExampleSecurities,
} from "../../../src/http/openapi/openapi.examples";
import { createOpenApiDocument } from "../../../src/http/openapi/openapi.routes";
import { loadConfig } from "../../../src/platform/config";
import { SampleGenerator } from "../../../src/tools/sample/sample.generator";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { openApiDocument } from "../../helpers/openapi";

/**
 * The examples of the OpenAPI document, which the docs page's "Try it out" sends as they are: every operation has
 * one and each answers 200 on the store the service runs on; every response shows an example; the Authorize dialog
 * says where the local key is. The browser test (test/http/browser/docs-try-it.spec.ts) clicks through them.
 */

type Json = Record<string, unknown>;
interface Operation {
  path: string;
  method: string;
  op: Json;
  /** Every operation of the path (a GET's POST beside it). */
  item: Record<string, Json>;
}

function operations(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op, item })),
  );
}

const mediaOf = (holder: Json | undefined) =>
  ((holder?.content as Json | undefined)?.["application/json"] ?? undefined) as Json | undefined;

function requestExamplesOf(op: Json): Record<string, { value: Json }> {
  return (mediaOf(op.requestBody as Json | undefined)?.examples ?? {}) as Record<string, { value: Json }>;
}

/** The first securities of a generated sample's lists (list order is security id), as the examples take them. */
function firstOfSample(seed: number, scale: number, anchorDate: string): ExampleSecurities {
  const g = new SampleGenerator({ seed, anchorDate, scale, helperThread: false });
  const first = <T extends { id: number }>(xs: readonly T[]): T => [...xs].sort((a, b) => a.id - b.id)[0]!;
  return {
    stock: first(g.stocks).listings[0]!.symbol,
    etf: first(g.etfs).listings[0]!.symbol,
    fundIsin: first(g.funds).isin!,
    crypto: first(g.crypto).listings[0]!.symbol,
    forex: first(g.forex).listings[0]!.symbol,
  };
}

describe("OpenAPI examples", () => {
  let t: TestApp;
  let securities: ExampleSecurities;
  let served: OpenApiDocument;

  beforeAll(async () => {
    t = await createTestApp();
    securities = exampleSecurities(t.deps.searchIndex);
    served = (await t.http.get("/openapi.json")).body as OpenApiDocument;
  });
  afterAll(() => t.close());

  it("the served document names the first security of each list of the store it runs on", async () => {
    const firstOf = async (list: string) => (await t.post(`/v1/${list}`, { limit: 1 })).body.results[0];
    expect(securities).toEqual({
      stock: (await firstOf("list/stocks")).symbol,
      etf: (await firstOf("list/etfs")).symbol,
      fundIsin: (await firstOf("list/funds")).isin,
      crypto: (await firstOf("list/crypto")).symbol,
      forex: "EURUSD",
    });
    expect(served).toEqual(createOpenApiDocument(getSchema(), undefined, securities));
    const quote = requestExamplesOf(served.paths["/v1/quote"]!.post!);
    expect(quote.stock!.value).toEqual({ symbol: securities.stock });
    expect(quote.fund!.value).toEqual({ isin: securities.fundIsin });
  });

  it("every operation has a request example (a GET: nothing to send), naming at most one identifier", () => {
    for (const doc of [served, openApiDocument()]) {
      for (const { path, method, op, item } of operations(doc)) {
        if (!op.requestBody) {
          // A GET: what it sends is its query parameters, each a field of the POST's first example where that sets it.
          const request = Object.values(requestExamplesOf(item.post as Json))[0]?.value ?? {};
          for (const p of (op.parameters ?? []) as Json[]) {
            const wanted = request[p.name as string];
            expect({ path, method, parameter: p.name, example: p.example }).toEqual({
              path,
              method,
              parameter: p.name,
              example: wanted,
            });
          }
          continue;
        }
        const examples = Object.values(requestExamplesOf(op));
        expect({ path, method, count: examples.length > 0 }).toEqual({ path, method, count: true });
        for (const { value } of examples) {
          const items = [value, ...((value.symbols ?? []) as Json[])];
          for (const item of items) {
            const named = ["symbol", "isin", "cusip", "wkn"].filter((k) => k in item);
            expect({ path, item, identifiers: named.length <= 1 }).toEqual({ path, item, identifiers: true });
          }
        }
      }
    }
  });

  it("every request example answers 200 on the store (or a removed or gateway-only endpoint's 404)", async () => {
    let sent = 0;
    for (const { path, method, op } of operations(served)) {
      if (method !== "post") continue;
      for (const [name, { value }] of Object.entries(requestExamplesOf(op))) {
        const res = await t.post(path, value);
        sent++;
        const removed = op["x-removed-on"] !== undefined;
        // An endpoint only gateway mode serves answers NOT_AVAILABLE over the store, as its 404 documents.
        const expected = removed
          ? { status: 404, code: "ENDPOINT_REMOVED" }
          : op["x-gateway-only"] === true
            ? { status: 404, code: "NOT_AVAILABLE" }
            : { status: 200, code: undefined };
        expect({ path, name, status: res.status, code: res.body.code }).toEqual({ path, name, ...expected });
      }
    }
    expect(sent).toBeGreaterThan(operations(served).filter((o) => o.method === "post").length);
  });

  it("every response of every operation shows an example; each 200 example validates against its schema", () => {
    const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addSchema({ $id: "doc", components: served.components });
    const resolve = (r: Json): Json =>
      typeof r.$ref === "string"
        ? (served.components.responses as Record<string, Json>)[r.$ref.replace("#/components/responses/", "")]!
        : r;
    for (const { path, method, op } of operations(served)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const media = mediaOf(resolve(response))!;
        const examples = Object.entries((media.examples ?? {}) as Record<string, { value: unknown }>);
        expect({ path, method, status, examples: examples.length > 0 }).toEqual({
          path,
          method,
          status,
          examples: true,
        });
        if (status !== "200") continue;
        const validate = ajv.compile({ $ref: `doc${(media.schema as { $ref: string }).$ref}` });
        for (const [name, example] of examples) {
          expect({ path, name, valid: validate(example.value), errors: validate.errors ?? null }).toEqual({
            path,
            name,
            valid: true,
            errors: null,
          });
        }
      }
    }
  });

  it("the Authorize dialog says where the local key is", () => {
    const scheme = (served.components.securitySchemes as Record<string, Json>).ApiKey!;
    expect(scheme.description).toContain("`data/dev-key`");
  });

  it("docs/openapi.json names the default sample's first securities (seed and scale of the default config)", () => {
    const { seed, scale } = loadConfig({}).sample;
    expect({ seed, scale }).toEqual({ seed: 42, scale: 1 });
    expect(firstOfSample(seed, scale, TEST_ANCHOR)).toEqual(DEFAULT_SAMPLE_SECURITIES);
    const quote = requestExamplesOf(openApiDocument().paths["/v1/quote"]!.post!);
    expect(quote.stock!.value).toEqual({ symbol: DEFAULT_SAMPLE_SECURITIES.stock });
  }, 180_000);

  it("the sample's first securities depend on its seed and scale, not on its anchor day", () => {
    const at = (seed: number, scale: number, anchor: string) => firstOfSample(seed, scale, anchor);
    const small = at(42, 0.005, "2026-11-20");
    expect(at(42, 0.005, "2025-03-03")).toEqual(small);
    // A different scale draws a different universe: the examples follow the store, not one fixed list.
    expect(small.stock).not.toBe(DEFAULT_SAMPLE_SECURITIES.stock);
  });
});
