import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { Response } from "supertest";
import type request from "supertest";
import { getSchema } from "../../src/http/graphql/schema";
import { UNDOCUMENTED, type OpenApiDocument } from "../../src/http/openapi/openapi.document";
import { createOpenApiDocument } from "../../src/http/openapi/openapi.routes";

/**
 * Checks REST answers against the OpenAPI document the service serves, so an
 * answer that drifts from its documented shape fails the test that produced
 * it. `createTestApp` wraps `t.http` and `t.post` with it: every request a
 * test makes to `/v0/...` or `/v1/...` is checked by path, method and status.
 *
 * - a documented operation: the status must be one of its responses, the body
 *   must validate (JSON Schema 2020-12, ajv) against that response's schema,
 *   and every required header must be there with a valid value;
 * - anything else under /v0 or /v1 (an unknown path, another method): the
 *   status must be 401, 403, 404 or 500 and the body the contract's error body.
 */

type Json = Record<string, unknown>;

let documentCache: OpenApiDocument | undefined;
let ajvCache: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

/** The document, built once per test worker, exactly as `/openapi.json` serves it. */
export function openApiDocument(): OpenApiDocument {
  documentCache ??= createOpenApiDocument(getSchema());
  return documentCache;
}

function ajv(): Ajv2020 {
  if (!ajvCache) {
    // strict: false lets the OpenAPI document itself be added as a schema (its `paths`, `info`… are not keywords).
    ajvCache = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajvCache);
    ajvCache.addSchema(openApiDocument(), "openapi.json");
  }
  return ajvCache;
}

/** A validator for a schema of the document, by JSON pointer (`#/components/schemas/X`) or inline. */
function validatorFor(key: string, schema: Json): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    const ref = schema.$ref;
    v = ajv().compile(typeof ref === "string" && ref.startsWith("#/") ? { $ref: `openapi.json${ref}` } : schema);
    validators.set(key, v);
  }
  return v;
}

/** Follows one `$ref` inside the document. */
function resolve<T = Json>(node: Json): T {
  const ref = node.$ref;
  if (typeof ref !== "string") return node as T;
  let cur: unknown = openApiDocument();
  for (const part of ref.replace(/^#\//, "").split("/"))
    cur = (cur as Json)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  if (cur === undefined) throw new Error(`OpenAPI: dangling $ref ${ref}`);
  return cur as T;
}

const VERSIONED = /^\/(v0|v1)(\/.*)?$/;

function describe(method: string, path: string, res: Response): string {
  const body = res.text ?? "";
  const shown = body.length > 600 ? `${body.slice(0, 600)}…` : body;
  return `${method.toUpperCase()} ${path} answered ${res.status} ${shown}`;
}

function fail(message: string): never {
  throw new Error(
    `${message}\n(the answer does not match the OpenAPI document: ` +
      "fix the route's `response` schema or the shape, then run `npm run openapi`)",
  );
}

function checkBody(method: string, path: string, res: Response, key: string, schema: Json): void {
  const validate = validatorFor(key, schema);
  if (!validate(res.body)) {
    const errors = (validate.errors ?? [])
      .slice(0, 8)
      .map((e) => {
        const extra = e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : "";
        return `  ${e.instancePath || "(body)"} ${e.message}${extra}`;
      })
      .join("\n");
    fail(
      `${describe(method, path, res)}\n` +
        `body does not validate against ${schema.$ref ?? "the documented schema"}:\n${errors}`,
    );
  }
}

/**
 * Throws (failing the test) when a REST answer is not what the document says. Answers outside /v0 and /v1 pass
 * untouched.
 */
export function assertMatchesOpenApi(method: string, url: string, res: Response): void {
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, "").split(/[?#]/)[0]!;
  const m = VERSIONED.exec(path);
  if (!m) return;
  const verb = method.toLowerCase();
  const docPath = `/${m[1]}/${(m[2] ?? "").replace(/^\/+|\/+$/g, "")}`;
  const operation = openApiDocument().paths[docPath]?.[verb] as Json | undefined;
  const status = String(res.status);

  if (verb !== "head" && !/^application\/json\b/.test(String(res.headers["content-type"] ?? ""))) {
    fail(
      `${describe(method, path, res)}\ncontent-type is ${String(res.headers["content-type"])}, not application/json`,
    );
  }

  if (!operation) {
    if (!["401", "403", "404", "500"].includes(status)) {
      fail(
        `${describe(method, path, res)}\n` +
          `${method.toUpperCase()} ${docPath} is not in the OpenAPI document, so it may only answer an error`,
      );
    }
    if (verb !== "head")
      checkBody(method, path, res, "#/components/schemas/ErrorBody", { $ref: "#/components/schemas/ErrorBody" });
    return;
  }

  const responses = operation.responses as Record<string, Json>;
  const documented = responses[status];
  if (!documented)
    fail(
      `${describe(method, path, res)}\n` +
        `the document lists only ${Object.keys(responses).join(", ")} for ${verb.toUpperCase()} ${docPath}`,
    );
  const response = resolve(documented);

  for (const [name, h] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    const header = resolve(h);
    const value = res.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) fail(`${describe(method, path, res)}\nthe required header ${name} is missing`);
      continue;
    }
    const schema = header.schema as Json | undefined;
    if (schema && !validatorFor(`header:${JSON.stringify(schema)}`, schema)(value)) {
      fail(
        `${describe(method, path, res)}\n` +
          `header ${name}: ${JSON.stringify(value)} does not match ${JSON.stringify(schema)}`,
      );
    }
  }

  if (verb === "head") return;
  // The route has no `response` yet: test/openapi fails naming it.
  if (status === "200" && operation[UNDOCUMENTED]) return;
  const schema = (response.content as Json | undefined)?.["application/json"] as Json | undefined;
  if (!schema?.schema) fail(`${describe(method, path, res)}\nthe document gives no JSON body for ${status}`);
  const bodySchema = schema.schema as Json;
  const key = typeof bodySchema.$ref === "string" ? bodySchema.$ref : `${docPath} ${verb} ${status}`;
  checkBody(method, path, res, key, bodySchema);
}

const HTTP_METHODS: Record<string, string> = {
  get: "get",
  post: "post",
  put: "put",
  patch: "patch",
  delete: "delete",
  del: "delete",
  head: "head",
  options: "options",
};

/**
 * Wraps a supertest agent so that every request made through it checks its
 * answer with `assertMatchesOpenApi` (as a supertest assertion: a mismatch
 * rejects the awaited request and fails the test).
 */
export function validatingAgent<T extends ReturnType<typeof request>>(agent: T): T {
  return new Proxy(agent, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      const method = typeof prop === "string" ? HTTP_METHODS[prop] : undefined;
      if (!method || typeof value !== "function") return value;
      return (url: string, ...rest: unknown[]) =>
        (value as (url: string, ...rest: unknown[]) => request.Test)
          .call(target, url, ...rest)
          .expect((res: Response) => assertMatchesOpenApi(method, url, res));
    },
  });
}
