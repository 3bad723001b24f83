import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import express from "express";
import request from "supertest";
import { GRAPHIQL_ASSETS_PATH, graphiqlHandler, wantsGraphiql } from "../../../src/http/graphql/graphiql";

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

/** A tiny app: only the handler, then a marker showing what fell through (where Apollo would be). */
function app(mount?: string) {
  const a = express();
  if (mount) a.use(mount, graphiqlHandler({ endpoint: "/graphql" }));
  else a.use(graphiqlHandler({ endpoint: "/graphql" }));
  a.use((req, res) => {
    res.status(404).json({ fellThrough: `${req.method} ${req.originalUrl}` });
  });
  return a;
}

function packageFile(pkg: string, file: string): Buffer {
  return readFileSync(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file));
}

/** Reads any body as raw bytes, whatever its content type. */
function binary(res: request.Response, done: (err: Error | null, body: Buffer) => void): void {
  // superagent hands parsers the response stream, whatever its typings say.
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on("data", (c: Buffer) => chunks.push(c));
  stream.on("end", () => done(null, Buffer.concat(chunks)));
}

/** Every URL the page makes the browser load. */
function referencedUrls(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/g)].map((m) => m[1]!);
}

async function page(a = app(), url = "/graphql") {
  const res = await request(a).get(url).set("Accept", BROWSER_ACCEPT);
  expect(res.status).toBe(200);
  return res;
}

describe("GraphiQL page", () => {
  it("answers a browser's GET /graphql with an HTML page", async () => {
    const res = await page();

    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.text).toMatch(/^<!doctype html>/);
    expect(res.text).toContain('<div id="graphiql">');
    expect(res.headers["vary"]).toMatch(/Accept/);
  });

  it("references no outside host: no http(s) URL at all, only its own assets", async () => {
    const { text, headers } = await page();

    expect(text).not.toMatch(/https?:\/\//i);
    expect(text).not.toMatch(/\/\/[a-z0-9.-]+\.[a-z]{2,}/i); // no protocol-relative URL either
    const urls = referencedUrls(text);
    const scripts = urls.filter((u) => u.endsWith(".js"));
    expect(scripts.map((u) => path.basename(u))).toEqual([
      "react.production.min.js",
      "react-dom.production.min.js",
      "graphiql.min.js",
      "graphql-ws.min.js",
      "graphiql-init.js",
    ]);
    expect(urls.filter((u) => u.endsWith(".css")).map((u) => path.basename(u))).toEqual(["graphiql.min.css"]);
    for (const url of urls) expect(url.startsWith(`${GRAPHIQL_ASSETS_PATH}/`) || url === "data:,").toBe(true);
    // And the browser is told to keep it that way.
    const csp = headers["content-security-policy"];
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/connect-src 'self'(;|$)/);
    expect(csp).not.toMatch(/https?:/);
  });

  it("serves every asset it references, with the right type and long cache headers", async () => {
    const a = app();
    const { text } = await page(a);
    const expected: Record<string, { type: RegExp; body?: Buffer }> = {
      "react.production.min.js": {
        type: /^text\/javascript; charset=utf-8$/,
        body: packageFile("react", "umd/react.production.min.js"),
      },
      "react-dom.production.min.js": {
        type: /^text\/javascript; charset=utf-8$/,
        body: packageFile("react-dom", "umd/react-dom.production.min.js"),
      },
      "graphiql.min.js": {
        type: /^text\/javascript; charset=utf-8$/,
        body: packageFile("graphiql", "graphiql.min.js"),
      },
      "graphiql.min.css": { type: /^text\/css; charset=utf-8$/, body: packageFile("graphiql", "graphiql.min.css") },
      "graphql-ws.min.js": {
        type: /^text\/javascript; charset=utf-8$/,
        body: packageFile("graphql-ws", "umd/graphql-ws.min.js"),
      },
      "graphiql-init.js": { type: /^text\/javascript; charset=utf-8$/ },
    };

    const assets = referencedUrls(text).filter((u) => u.startsWith(GRAPHIQL_ASSETS_PATH));
    expect(assets).toHaveLength(6);
    for (const url of assets) {
      const res = await request(a).get(url).set("Accept-Encoding", "identity").buffer(true).parse(binary);
      const want = expected[path.basename(url)]!;
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toMatch(want.type);
      expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["content-encoding"]).toBeUndefined();
      if (want.body) expect(Buffer.compare(res.body as Buffer, want.body)).toBe(0);
    }
  });

  it("gzips assets for clients that accept it, and answers 304 to a revalidation", async () => {
    const a = app();
    const url = referencedUrls((await page(a)).text).find((u) => u.endsWith("/graphiql.min.js"))!;

    const res = await request(a).get(url).set("Accept-Encoding", "gzip").buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.headers["vary"]).toMatch(/Accept-Encoding/);
    // supertest may already have inflated it; either way the bytes are the bundle's.
    const raw = res.body as Buffer;
    const body = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
    expect(Buffer.compare(body, packageFile("graphiql", "graphiql.min.js"))).toBe(0);

    const again = await request(a).get(url).set("Accept-Encoding", "gzip").set("If-None-Match", res.headers["etag"]!);
    expect(again.status).toBe(304);
  });

  it("sets up GraphiQL: headers editor prefilled with x-api-key, a fetcher posting JSON to the endpoint", async () => {
    const a = app();
    const { text } = await page(a);
    const config = JSON.parse(
      /<script type="application\/json" id="graphiql-config">([^<]*)<\/script>/.exec(text)![1]!,
    );
    expect(config.endpoint).toBe("/graphql");
    expect(JSON.parse(config.defaultHeaders)).toEqual({ "x-api-key": "" });
    expect(config.defaultQuery).toMatch(/x-api-key/);
    expect(
      config.defaultQuery
        .split("\n")
        .filter((l: string) => l.trim() && !l.startsWith("#"))
        .join(""),
    ).toMatch(/\{\s*__typename\s*\}/);

    const initUrl = referencedUrls(text).find((u) => u.endsWith("/graphiql-init.js"))!;
    const init = (await request(a).get(initUrl).buffer(true).parse(binary)).body.toString("utf8");
    expect(init).toMatch(/method: "POST"/);
    expect(init).toMatch(/"content-type": "application\/json"/);
    expect(init).toMatch(/isHeadersEditorEnabled: true/);
    expect(init).toMatch(/defaultHeaders: config\.defaultHeaders/);
    expect(init).not.toMatch(/https?:\/\//);
    expect(() => new Function(init)).not.toThrow(); // it is at least valid JavaScript
  });

  it("prefixes asset and endpoint URLs with the mount path", async () => {
    const a = app("/api");
    const { text } = await page(a, "/api/graphql");

    const urls = referencedUrls(text).filter((u) => u !== "data:,");
    for (const url of urls) {
      expect(url.startsWith(`/api${GRAPHIQL_ASSETS_PATH}/`)).toBe(true);
      expect((await request(a).get(url)).status).toBe(200);
    }
    expect(text).toContain('"endpoint":"/api/graphql"');
  });

  it("leaves every other request on /graphql to the next handler (Apollo)", async () => {
    const a = app();
    for (const accept of [
      undefined,
      "*/*",
      "application/json",
      "application/graphql-response+json, text/html;q=0.9",
      "application/json, text/html",
    ]) {
      const req = request(a).get("/graphql?query=%7B__typename%7D");
      const res = accept === undefined ? await req : await req.set("Accept", accept);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ fellThrough: "GET /graphql?query=%7B__typename%7D" });
    }
    const post = await request(a).post("/graphql").set("Accept", BROWSER_ACCEPT).send({ query: "{__typename}" });
    expect(post.body).toEqual({ fellThrough: "POST /graphql" });
  });

  it("does not serve unknown or stale asset paths", async () => {
    const a = app();
    for (const url of [
      `${GRAPHIQL_ASSETS_PATH}/0000000000000000/graphiql.min.js`,
      `${GRAPHIQL_ASSETS_PATH}/graphiql.min.js`,
      `${GRAPHIQL_ASSETS_PATH}/../package.json`,
    ]) {
      const res = await request(a).get(url);
      expect(res.status).toBe(404);
      expect(res.body).toHaveProperty("fellThrough");
    }
  });

  it("refuses an endpoint that is not a path", () => {
    expect(() => graphiqlHandler({ endpoint: "graphql" })).toThrow(/must be a path/);
  });
});

describe("wantsGraphiql", () => {
  const req = (method: string, accept?: string) => {
    const a = express();
    let answer: boolean | undefined;
    a.use((r, res) => {
      answer = wantsGraphiql(r);
      res.end();
    });
    const t = request(a)[method.toLowerCase() as "get" | "post" | "head"]("/graphql");
    return (accept === undefined ? t : t.set("Accept", accept)).then(() => answer);
  };

  it("is true for a browser navigation", async () => {
    expect(await req("GET", BROWSER_ACCEPT)).toBe(true);
    expect(await req("GET", "text/html")).toBe(true);
    expect(await req("HEAD", "text/html")).toBe(true);
  });

  it("is false for GraphQL clients and other methods", async () => {
    expect(await req("GET")).toBe(false);
    expect(await req("GET", "*/*")).toBe(false);
    expect(await req("GET", "application/json")).toBe(false);
    expect(await req("GET", "application/graphql-response+json, application/json;q=0.9")).toBe(false);
    expect(await req("GET", "application/json, text/html")).toBe(false);
    expect(await req("POST", "text/html")).toBe(false);
  });
});
