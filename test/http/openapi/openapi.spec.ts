import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { Response } from "supertest";
import { z } from "zod";
import { getSchema } from "../../../src/http/graphql/schema";
import { buildOpenApiDocument, UNDOCUMENTED, type OpenApiDocument } from "../../../src/http/openapi/openapi.document";
import { exampleSecurities } from "../../../src/http/openapi/openapi.examples";
import {
  createOpenApiDocument,
  documentedRoutes,
  serializeOpenApi,
  serviceVersion,
} from "../../../src/http/openapi/openapi.routes";
import { VERSIONS } from "../../../src/http/rest/rest.route";
import { createTestApp, type TestApp } from "../../helpers/app";
import { assertMatchesOpenApi, openApiDocument } from "../../helpers/openapi";

const root = join(__dirname, "..", "..", "..");

type Json = Record<string, unknown>;

/** Runs @seriousme/openapi-schema-validator's CLI (the package is ESM-only) on a document; returns its verdict. */
function validateWithOpenApiValidator(document: unknown): { valid: boolean; errors?: unknown } {
  const dir = mkdtempSync(join(tmpdir(), "mdg-openapi-"));
  const file = join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(document));
  const cli = join(
    dirname(require.resolve("@seriousme/openapi-schema-validator/package.json")),
    "bin",
    "validate-api-cli.js",
  );
  try {
    const out = execFileSync(process.execPath, [cli, file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return JSON.parse(out) as { valid: boolean };
  } catch (e) {
    const out = (e as { stdout?: string }).stdout ?? "";
    return out.trim().startsWith("{")
      ? (JSON.parse(out) as { valid: boolean; errors: unknown })
      : { valid: false, errors: String(e) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A stand-in for a supertest answer, for checking the checker. */
function fakeAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return {
    status,
    body,
    text: JSON.stringify(body),
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": "req-1", ...headers },
  } as unknown as Response;
}

const V0_HEADERS = { deprecation: "@1735689599", sunset: "Tue, 31 Dec 2024 23:59:59 GMT" };

describe("OpenAPI document", () => {
  let t: TestApp;
  let served: OpenApiDocument;

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.http.get("/openapi.json");
    expect(res.status).toBe(200);
    served = res.body as OpenApiDocument;
  });
  afterAll(() => t.close());

  it("is served at GET /openapi.json without a key, as JSON", async () => {
    const res = await t.http.get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe("3.1.0");
    // The document of the route table, its examples naming this store's securities (docs/openapi.json names the
    // default sample's).
    expect(res.body).toEqual(createOpenApiDocument(getSchema(), undefined, exampleSecurities(t.deps.searchIndex)));
  });

  it("passes the OpenAPI 3.1 validator (@seriousme/openapi-schema-validator)", () => {
    expect(validateWithOpenApiValidator(served)).toEqual({ valid: true });
  });

  it("the validator does catch a broken document (so the test above means something)", () => {
    const broken = structuredClone(served) as Json;
    delete (broken.info as Json).title;
    ((broken.paths as Json)["/v1/quote"] as Json).post = { responses: { "200": {} } };
    expect(validateWithOpenApiValidator(broken).valid).toBe(false);
  });

  it("docs/openapi.json is up to date with the route table (run `npm run openapi`)", () => {
    const committed = readFileSync(join(root, "docs", "openapi.json"), "utf8").split("\n");
    const current = serializeOpenApi(openApiDocument()).split("\n");
    const line = current.findIndex((l, i) => l !== committed[i]);
    if (line >= 0 || committed.length !== current.length) {
      const at = line >= 0 ? line : Math.min(committed.length, current.length);
      throw new Error(
        `docs/openapi.json is stale: run \`npm run openapi\` and commit it. First difference at line ${at + 1}:\n` +
          `  committed: ${committed[at] ?? "(end of file)"}\n  generated: ${current[at] ?? "(end of file)"}`,
      );
    }
  });

  it("every route has a `response` schema (add it to the route in its *.routes.ts, see RouteEntry.response)", () => {
    const missing = documentedRoutes(getSchema())
      .filter((r) => r.response === undefined)
      .map((r) => r.path);
    if (missing.length > 0) {
      throw new Error(
        "These REST routes have no `response` zod schema, so the OpenAPI document cannot describe their 200 body " +
          `and the test suite cannot check it: ${missing.join(", ")}. ` +
          "Add `response: z.object({...})` beside `shape` (src/http/rest/rest.route.ts, RouteEntry.response; " +
          "helpers in src/http/rest/rest.response.ts), then run `npm run openapi`.",
      );
    }
    expect(JSON.stringify(served)).not.toContain(UNDOCUMENTED);
  });

  it("documents every path of every version that has it, and leaves out the versions that never had it", () => {
    for (const route of documentedRoutes(getSchema())) {
      for (const version of VERSIONS) {
        const path = `/${version}/${route.path}`;
        const documented = served.paths[path]?.post !== undefined;
        expect({ path, documented }).toEqual({ path, documented: route.versions.includes(version) });
      }
    }
    expect(Object.keys(served.paths).every((p) => /^\/v[01]\//.test(p))).toBe(true);
    // Left out of /v1, which never had them; the introduction says what such a path answers.
    expect(served.paths["/v1/stock/candle"]).toBeUndefined();
    expect(served.paths["/v1/index/constituents"]).toBeUndefined();
    expect((served.info as Json).description).toContain(
      "`/v0/stock/candle` (removed on 2024-12-31), `/v0/index/constituents` (removed on 2024-05-01)",
    );
  });

  it("lists the five statuses, a 200 among them, on every operation", () => {
    for (const [path, item] of Object.entries(served.paths)) {
      const statuses = Object.keys((item.post as Json).responses as Json).sort();
      expect({ path, statuses }).toEqual({ path, statuses: ["200", "401", "403", "404", "500"] });
    }
  });

  it("names the server (relative: whatever host served the document) and a contact", () => {
    expect(served.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    expect((served.info as Json).contact).toEqual({ name: expect.stringMatching(/maintainers/) });
  });

  it("describes the error body once, and every error response uses it", () => {
    const errorBody = served.components.schemas as Record<string, Json>;
    expect(Object.keys(errorBody.ErrorBody!.properties as Json)).toEqual([
      "statusCode",
      "error",
      "code",
      "message",
      "details",
      "requestId",
      "removedOn",
      "replacement",
    ]);
    expect(errorBody.ErrorBody!.required).toEqual(["statusCode", "error", "code", "message", "requestId"]);
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const validate = ajv.compile(errorBody.ErrorBody!);
    const errorResponses = [
      ...Object.values(served.components.responses as Record<string, Json>),
      ...Object.values(served.paths)
        .flatMap((p) => Object.values((p.post as Json).responses as Record<string, Json>))
        .filter((r) => !r.$ref && r.description !== "OK"),
    ];
    for (const response of errorResponses) {
      const media = (response.content as Json)["application/json"] as Json;
      expect(media.schema).toEqual({ $ref: "#/components/schemas/ErrorBody" });
      // The examples the docs page shows are error bodies too.
      for (const [name, example] of Object.entries(media.examples as Record<string, { value: unknown }>)) {
        expect({ name, valid: validate(example.value), errors: validate.errors ?? null }).toEqual({
          name,
          valid: true,
          errors: null,
        });
      }
    }
  });

  it("declares the x-api-key security scheme for every operation", () => {
    expect((served.components.securitySchemes as Json).ApiKey).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "x-api-key",
    });
    expect(served.security).toEqual([{ ApiKey: [] }]);
  });

  it("marks /v0 deprecated (Deprecation, Sunset, Link headers) and removed endpoints with day and replacement", () => {
    const v0 = served.paths["/v0/etf/profile"]!.post as Json;
    expect(v0.deprecated).toBe(true);
    const headers = ((v0.responses as Json)["200"] as Json).headers as Json;
    expect(Object.keys(headers)).toEqual(expect.arrayContaining(["deprecation", "sunset", "link"]));
    const v1 = served.paths["/v1/etf/profile"]!.post as Json;
    expect(v1.deprecated).toBeUndefined();
    expect(Object.keys(((v1.responses as Json)["200"] as Json).headers as Json)).not.toContain("deprecation");

    expect(served.paths["/v0/stock/candle"]!.post).toMatchObject({
      deprecated: true,
      "x-removed-on": "2024-12-31",
      "x-replacement": "/v1/candle",
    });
    expect(served.paths["/v0/index/constituents"]!.post).toMatchObject({
      deprecated: true,
      "x-removed-on": "2024-05-01",
    });
  });

  it("takes request bodies from each route's zod body, input side (before transforms)", () => {
    const schemas = served.components.schemas as Record<string, Json>;
    expect(schemas.CandleRequest!.properties).toMatchObject({
      from: { type: ["number", "string"] },
      resolution: { type: ["string", "number"] },
    });
    expect(schemas.CryptoPriceRequest!.required).toEqual(["symbol"]);
    expect((served.paths["/v1/calendar/dividends"]!.post as Json).requestBody).toMatchObject({ required: false });
  });

  it("has v0 and v1 holdings shapes: cusip only in /v0", () => {
    const schemas = served.components.schemas as Record<string, Json>;
    const item = (name: string) => ((schemas[name]!.properties as Json).holdings as Json).items as Json;
    expect(Object.keys(item("EtfHoldingsResponseV0").properties as Json)).toContain("cusip");
    expect(Object.keys(item("EtfHoldingsResponseV1").properties as Json)).not.toContain("cusip");
  });

  it("types bulk per version: endpoint as an enum, one identifier an item, each endpoint's 200 body as data", () => {
    const schemas = served.components.schemas as Record<string, Json>;
    const routes = documentedRoutes(getSchema());
    for (const version of VERSIONS) {
      const V = version.toUpperCase();
      const names = routes.filter((r) => r.singleSecurity && r.versions.includes(version)).map((r) => r.path);
      const request = schemas[`BulkRequest${V}`]!.properties as Record<string, Json>;
      expect(request.endpoint!.enum).toEqual(names);
      // Each item names its security by exactly one of the four identifiers (docs/contract.md section 1).
      expect(Object.keys((request.symbols!.items as Json).properties as Json)).toEqual([
        "symbol",
        "isin",
        "cusip",
        "wkn",
      ]);
      const op = served.paths[`/${version}/bulk`]!.post as Json;
      expect((op.requestBody as Json).content).toEqual({
        "application/json": { schema: { $ref: `#/components/schemas/BulkRequest${V}` }, examples: expect.any(Object) },
      });

      const variants = schemas[`BulkResponse${V}`]!.oneOf as Json[];
      const byEndpoint = Object.fromEntries(
        variants.map((v) => {
          const props = v.properties as Record<string, Json>;
          const [ok, failed] = (props.results!.items as Json).anyOf as Json[] as [Json, Json];
          expect(failed).toEqual({ $ref: "#/components/schemas/BulkItemError" });
          return [props.endpoint!.const as string, ((ok.properties as Json).data as Json).$ref];
        }),
      );
      // Each endpoint's data is a reference to the very schema its own path answers under this version.
      expect(byEndpoint).toEqual(
        Object.fromEntries(
          names.map((path) => {
            const direct = served.paths[`/${version}/${path}`]!.post as Json;
            const content = ((direct.responses as Json)["200"] as Json).content as Json;
            return [
              path,
              (content["application/json"] as Json).schema &&
                ((content["application/json"] as Json).schema as Json).$ref,
            ];
          }),
        ),
      );
      expect(byEndpoint["etf/holdings"]).toBe(`#/components/schemas/EtfHoldingsResponse${V}`);
    }
    expect((schemas.BulkRequestV0!.properties as Record<string, Json>).endpoint!.enum).toContain("stock/candle");
    expect((schemas.BulkRequestV1!.properties as Record<string, Json>).endpoint!.enum).not.toContain("stock/candle");
  });

  it("takes property descriptions from the GraphQL types the responses map onto", () => {
    const nullable = ((served.components.schemas as Record<string, Json>).EtfProfileResponse!.properties as Json)
      .profile as Json;
    // The profile is null for an ETF the store holds no profile of (docs/contract.md section 4): the object is the
    // non-null branch.
    const profile = (nullable.anyOf as Json[]).find((s) => s.type === "object")!;
    expect(profile["x-graphql-type"]).toBe("EtfProfile");
    expect((profile.properties as Record<string, Json>).expenseRatio!.description).toBe(
      getSchema().getType("EtfProfile") &&
        (
          getSchema().getType("EtfProfile") as unknown as { getFields(): Record<string, { description?: string }> }
        ).getFields().expenseRatio!.description,
    );
  });

  it("shows the empty answers of a known security without data, each valid against its 200 schema", () => {
    const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addSchema({ $id: "doc", components: served.components });
    const empties: string[] = [];
    for (const [path, item] of Object.entries(served.paths as Record<string, Json>)) {
      const ok = ((item.post as Json | undefined)?.responses as Json | undefined)?.["200"] as Json | undefined;
      const content = (ok?.content as Json | undefined)?.["application/json"] as Json | undefined;
      const example = (content?.examples as Record<string, { value: unknown }> | undefined)?.empty;
      if (!example) continue;
      empties.push(path);
      const validate = ajv.compile({ $ref: `doc${(content!.schema as { $ref: string }).$ref}` });
      expect({ path, valid: validate(example.value), errors: validate.errors ?? null }).toEqual({
        path,
        valid: true,
        errors: null,
      });
    }
    for (const path of ["/v1/candle", "/v0/dividends/annual", "/v1/stock/financials/ttm", "/v1/etf/profile"])
      expect(empties).toContain(path);
  });

  it("holds only well-formed JSON Schemas (ajv 2020-12, strict), every $ref among them resolving", () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addKeyword("x-graphql-type");
    // One resource holding every component, so that the `$ref`s between them (bulk's items) resolve.
    const defs = JSON.parse(
      JSON.stringify(served.components.schemas).replaceAll("#/components/schemas/", "#/$defs/"),
    ) as Record<string, Json>;
    ajv.addSchema({ $id: "urn:mdg:schemas", $defs: defs });
    for (const name of Object.keys(defs)) {
      expect(() => ajv.compile({ $ref: `urn:mdg:schemas#/$defs/${name}` })).not.toThrow();
    }
    expect(JSON.stringify(served)).not.toMatch(/x-response-of|x-component-ref/);
  });

  it("a route without a response schema is marked undocumented instead of guessed", () => {
    const doc = buildOpenApiDocument(
      [
        {
          path: "new/thing",
          summary: "A new endpoint",
          versions: ["v1"],
          scope: "stock",
          body: z.object({ symbol: z.string() }),
        },
      ],
      { version: serviceVersion(), graphqlSchema: getSchema() },
    );
    expect((doc.paths["/v1/new/thing"]!.post as Json)[UNDOCUMENTED]).toBe(true);
  });
});

describe("checking answers against the document", () => {
  const cryptoPrice = {
    symbol: "BTC-USD",
    base: "BTC",
    name: "Bitcoin",
    currency: "USD",
    price: 1,
    change: 0,
    changePercent: 0,
    open: 1,
    high: 1,
    low: 1,
    previousClose: 1,
    volume: 1,
    marketCapitalization: null,
    t: 1763650800,
  };

  it("accepts an answer that matches", () => {
    expect(() => assertMatchesOpenApi("post", "/v1/crypto/price", fakeAnswer(200, cryptoPrice))).not.toThrow();
    expect(() =>
      assertMatchesOpenApi(
        "post",
        "/v0/crypto/price",
        fakeAnswer(200, cryptoPrice, { ...V0_HEADERS, link: '</v1/crypto/price>; rel="successor-version"' }),
      ),
    ).not.toThrow();
  });

  it("fails an answer with a missing field, an extra field or a wrong type", () => {
    const { price: _price, ...missing } = cryptoPrice;
    expect(() => assertMatchesOpenApi("post", "/v1/crypto/price", fakeAnswer(200, missing))).toThrow(
      /must have required property 'price'/,
    );
    expect(() =>
      assertMatchesOpenApi("post", "/v1/crypto/price", fakeAnswer(200, { ...cryptoPrice, extra: 1 })),
    ).toThrow(/additional properties \(extra\)/);
    expect(() =>
      assertMatchesOpenApi("post", "/v1/crypto/price", fakeAnswer(200, { ...cryptoPrice, t: "now" })),
    ).toThrow(/\/t must be integer/);
  });

  it("checks each bulk item's data against the named endpoint's own schema", () => {
    const bulk = (endpoint: string, data: unknown) =>
      fakeAnswer(200, { endpoint, results: [{ symbol: "BTC-USD", statusCode: 200, data }] });
    expect(() => assertMatchesOpenApi("post", "/v1/bulk", bulk("crypto/price", cryptoPrice))).not.toThrow();
    expect(() => assertMatchesOpenApi("post", "/v1/bulk", bulk("crypto/price", { ...cryptoPrice, t: "now" }))).toThrow(
      /BulkResponseV1/,
    );
    // A crypto price is not an ETF profile: the endpoint decides which shape the data must have.
    expect(() => assertMatchesOpenApi("post", "/v1/bulk", bulk("etf/profile", cryptoPrice))).toThrow(/BulkResponseV1/);
    // /v1 has no stock candle endpoint, so no bulk answer names it.
    expect(() => assertMatchesOpenApi("post", "/v1/bulk", bulk("stock/candle", {}))).toThrow(/BulkResponseV1/);
  });

  it("fails a /v0 answer without its deprecation headers", () => {
    expect(() => assertMatchesOpenApi("post", "/v0/crypto/price", fakeAnswer(200, cryptoPrice))).toThrow(
      /required header deprecation is missing/,
    );
  });

  it("fails a status the document does not list, and an error without the contract's body", () => {
    expect(() => assertMatchesOpenApi("post", "/v1/crypto/price", fakeAnswer(400, { message: "bad" }))).toThrow(
      /lists only 200, 401, 403, 404, 500/,
    );
    expect(() => assertMatchesOpenApi("post", "/v1/crypto/price", fakeAnswer(404, { message: "bad" }))).toThrow(
      /ErrorBody/,
    );
  });

  it("fails a 200 from a path the document does not have", () => {
    expect(() => assertMatchesOpenApi("post", "/v1/not/documented", fakeAnswer(200, {}))).toThrow(
      /not in the OpenAPI document/,
    );
  });
});
