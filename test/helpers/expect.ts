import type { Response } from "supertest";
import type { TestApp } from "./app";
import { BOOTSTRAP_KEY } from "./constants";

const REASONS: Record<number, string> = {
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  500: "Internal Server Error",
};

/** Asserts the contract's error body (docs/contract.md section 3) and the request id header. */
export function expectErrorBody(res: Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.body.statusCode).toBe(status);
  expect(res.body.error).toBe(REASONS[status]);
  expect(typeof res.body.message).toBe("string");
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(res.body.requestId).toBe(res.headers["x-request-id"]);
  expect(res.body.stack).toBeUndefined();
}

/**
 * A single-security endpoint's GET answers as its POST, and so does its item in a bulk call (beside an unknown
 * symbol's 404): `path` is `/v0|v1/<endpoint>`, `body` the flat POST body, its `symbol` the item and the rest bulk's
 * `params`. Returns the POST's answer.
 */
export async function expectGetAndBulkAsPost(
  t: TestApp,
  path: string,
  body: { symbol: string } & Record<string, string>,
): Promise<Response> {
  const post = await t.post(path, body);
  expect(post.status).toBe(200);
  const get = await t.http.get(`${path}?${new URLSearchParams(body).toString()}`).set("x-api-key", BOOTSTRAP_KEY);
  expect(get.status).toBe(200);
  expect(get.body).toEqual(post.body);
  const [, version, ...endpoint] = path.split("/");
  const { symbol, ...params } = body;
  const bulk = await t.post(`/${version}/bulk`, {
    endpoint: endpoint.join("/"),
    symbols: [{ symbol }, { symbol: "NOPE-NOT-A-SYMBOL" }],
    ...(Object.keys(params).length > 0 ? { params } : {}),
  });
  expect(bulk.status).toBe(200);
  const results = bulk.body.results as { statusCode: number; data?: unknown }[];
  expect(results.map((r) => r.statusCode)).toEqual([200, 404]);
  expect(results[0]!.data).toEqual(post.body);
  return post;
}
