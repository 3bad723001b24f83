import type { Response } from "supertest";

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
