// Every call of graphql-js's validate is counted, Apollo's and the fast path's included, and every parse (graphql-js's
// `parse` and the gate's bounded parser both run its Parser's parseDocument): a document refused by the bounds must
// never reach validate(), and one without a key never reaches a parse.
jest.mock("graphql", () => {
  const actual = jest.requireActual<typeof import("graphql")>("graphql");
  return { ...actual, validate: jest.fn(actual.validate) };
});

import { Writable } from "node:stream";
import * as graphql from "graphql";
import { getIntrospectionQuery, type DocumentNode } from "graphql";
import { Parser } from "graphql/language/parser";
import pino from "pino";
import { loadConfig } from "../../../src/platform/config";
import { createHttpServer } from "../../../src/http/server/server.http";
import {
  checkDocumentBounds,
  parseBounded,
  type DocumentBounds,
} from "../../../src/http/graphql/graphql.document-bounds";
import { ROUTES } from "../../../src/http/rest/rest.routes";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { listen, send, type RawResponse } from "../../helpers/http";

/**
 * Documents whose validation would cost quadratic time (graphql-js's
 * overlapping-fields rule over same-named siblings) are refused by one walk
 * before validate() runs, on every path into /graphql; without a key nothing
 * is parsed at all. Mutations and subscriptions are the client's mistake,
 * refused without an error in the log.
 */
const parseCalls = jest.spyOn(Parser.prototype, "parseDocument");
const validateCalls = graphql.validate as unknown as jest.Mock;

const DEFAULTS: DocumentBounds = loadConfig({}).graphql;
const BTC = 'quote(symbol: "BTC-USD")';
const copies = (n: number, text: (i: number) => string) => Array.from({ length: n }, (_, i) => text(i)).join(" ");

/** The shapes: each stays under the default token limit (5,000), and each passes one bound. */
const BOMBS: { name: string; query: string; reason: string }[] = [
  {
    name: "1,240 copies of one field",
    query: `{ ${BTC} { ${copies(1240, () => "historicalPrice { day }")} } }`,
    reason: "TOO_MANY_SAME_NAME_FIELDS",
  },
  {
    name: "aliased copies of one field",
    query: `{ ${BTC} { ${copies(800, (i) => `a${i}: historicalPrice { day }`)} } }`,
    reason: "TOO_MANY_SAME_NAME_FIELDS",
  },
  {
    name: "copies inside inline fragments",
    query: `{ ${BTC} { ${copies(500, () => "... on Quote { historicalPrice { day } }")} } }`,
    reason: "TOO_MANY_SAME_NAME_FIELDS",
  },
  {
    name: "a fragment of many copies spread many times",
    query:
      `{ ${BTC} { historicalPrice { ${copies(40, () => "...D")} } } } ` +
      `fragment D on HistoricalPrice { ${copies(60, () => "day")} }`,
    reason: "TOO_MANY_SAME_NAME_FIELDS",
  },
  {
    name: "nested: same-named parents whose children merge",
    query: `{ ${BTC} { ${copies(60, () => "historicalPrice { day day day day day day day day }")} } }`,
    reason: "TOO_MANY_SAME_NAME_FIELDS",
  },
  {
    name: "many spreads of one fragment",
    query: `{ ${BTC} { ${copies(1000, () => "...Q")} } } fragment Q on Quote { c }`,
    reason: "TOO_MANY_FRAGMENT_SPREADS",
  },
  {
    name: "fragments expanding each other (a fragment bomb)",
    query:
      `{ ${BTC} { ...F0 } } ` +
      copies(13, (i) => `fragment F${i} on Quote { ...F${i + 1} ...F${i + 1} }`) +
      " fragment F13 on Quote { c }",
    reason: "TOO_MANY_FIELDS",
  },
  {
    name: "a second definition of a fragment's name, of 1,200 copies",
    query:
      `{ ${BTC} { ...A } } fragment A on Quote { c } fragment A on Quote { ${copies(1200, () => "c")} } ` +
      "fragment A on Quote { d }",
    reason: "TOO_MANY_SAME_NAME_FIELDS",
  },
  {
    name: "an unused fragment of 1,200 copies (validation visits it all the same)",
    query: `{ ${BTC} { c } } fragment U on Quote { ${copies(1200, () => "c")} }`,
    reason: "TOO_MANY_SAME_NAME_FIELDS",
  },
];

describe("checkDocumentBounds", () => {
  it.each(BOMBS)("refuses $name ($reason), under the token limit", ({ query, reason }) => {
    const document = jest.requireActual<typeof graphql>("graphql").parse(query, { maxTokens: 5_000 });
    let refused: graphql.GraphQLError | undefined;
    try {
      checkDocumentBounds(document, DEFAULTS);
    } catch (e) {
      refused = e as graphql.GraphQLError;
    }
    expect(refused?.extensions).toMatchObject({ code: "GRAPHQL_VALIDATION_FAILED", reason });
    const { limit, actual } = refused!.extensions as { limit: number; actual: number };
    expect(actual).toBeGreaterThan(limit);
  });

  it("lets the service's own operations and GraphiQL's introspection query through, with room to spare", () => {
    const own: DocumentNode[] = [
      ...ROUTES.map((r) => r.operation as DocumentNode),
      graphql.parse(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true })),
    ];
    const most = { sameNameFields: 0, selectionFields: 0, fragmentSpreads: 0, fields: 0 };
    for (const document of own) {
      const m = checkDocumentBounds(document, DEFAULTS);
      for (const k of Object.keys(most) as (keyof typeof most)[]) most[k] = Math.max(most[k], m[k]);
    }
    // What config.ts's description of the defaults says these operations use.
    expect(most).toEqual({ sameNameFields: 1, selectionFields: 23, fragmentSpreads: 1, fields: 226 });
    expect(DEFAULTS.maxSameNameFields).toBeGreaterThanOrEqual(10 * most.sameNameFields);
    expect(DEFAULTS.maxSelectionFields).toBeGreaterThanOrEqual(10 * most.selectionFields);
    expect(DEFAULTS.maxFragmentSpreads).toBeGreaterThanOrEqual(10 * most.fragmentSpreads);
    expect(DEFAULTS.maxFields).toBeGreaterThanOrEqual(10 * most.fields);
  });

  it("counts a spread fragment once per spread, and a cycle of fragments without looping", () => {
    const bounds = { ...DEFAULTS, maxFields: 6 };
    const twice = graphql.parse(`{ ${BTC} { ...A ...A } } fragment A on Quote { c d }`);
    expect(checkDocumentBounds(twice, bounds).fields).toBe(5);
    const cycle = graphql.parse(`{ ${BTC} { ...A } } fragment A on Quote { c ...B } fragment B on Quote { d ...A }`);
    expect(() => checkDocumentBounds(cycle, bounds)).not.toThrow();
  });
});

describe("parseBounded", () => {
  const actual = jest.requireActual<typeof graphql>("graphql");
  const fieldParses = jest.spyOn(Parser.prototype, "parseField");

  it.each([
    [BOMBS[0]!, DEFAULTS.maxSameNameFields],
    [BOMBS[1]!, DEFAULTS.maxSameNameFields],
    [BOMBS[2]!, DEFAULTS.maxSameNameFields],
    [BOMBS[5]!, DEFAULTS.maxFragmentSpreads],
  ])("stops the parse of $name where its selection set as written passes the bound", (bomb, bound) => {
    fieldParses.mockClear();
    let refused: graphql.GraphQLError | undefined;
    try {
      parseBounded(bomb.query, { noLocation: true, maxTokens: 5_000 }, DEFAULTS);
    } catch (e) {
      refused = e as graphql.GraphQLError;
    }
    expect(refused?.extensions).toMatchObject({ reason: bomb.reason, limit: bound, actual: bound + 1 });
    expect(refused?.message).toMatch(`at least ${bound + 1}`);
    // The field the copies sit in, and its copies (each with one child) up to the one that passed.
    expect(fieldParses.mock.calls.length).toBeLessThanOrEqual(2 * (bound + 1) + 1);
  });

  it.each([BOMBS[3]!, BOMBS[4]!, BOMBS[6]!])("parses $name whole: only merging reveals it", ({ query }) => {
    const options = { noLocation: true, maxTokens: 5_000 };
    expect(parseBounded(query, options, DEFAULTS)).toEqual(actual.parse(query, options));
  });

  it("parses the service's own operations and the introspection query as graphql-js does", () => {
    const texts = [
      ...ROUTES.map((r) => actual.print(r.operation as DocumentNode)),
      getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }),
    ];
    for (const text of texts) {
      for (const options of [{ noLocation: true }, {}]) {
        expect(parseBounded(text, options, DEFAULTS)).toEqual(actual.parse(text, options));
      }
    }
  });

  it("throws graphql-js's own syntax error, without a bound's reason", () => {
    const text = `{ ${BTC} { c `;
    expect(() => parseBounded(text, {}, DEFAULTS)).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/^Syntax Error/), extensions: {} }),
    );
  });
});

describe("the service's own operations", () => {
  it("are walked at start: bounds below what REST's operations use stop the start, naming the operation", async () => {
    await expect(createTestApp({ env: { MDG_GRAPHQL_MAX_SELECTION_FIELDS: "5" } })).rejects.toThrow(
      /^operation of [\w/]+: the document has (at least )?\d+ fields in one selection; at most 5 are allowed/,
    );
  });
});

describe("over HTTP", () => {
  let t: TestApp;
  let port: number;
  let close: () => Promise<void>;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const logs = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    });
    t = await createTestApp({ logger: pino({ level: "info" }, logs) });
    ({ port, close } = await listen(createHttpServer(t.app, pino({ level: "silent" }))));
  });
  afterAll(async () => {
    await close();
    await t.close();
  });

  type Path = "door" | "express" | "get";
  /** The same document three ways: plain JSON (the door), chunked JSON (Express and body-parser), GET. */
  function ask(path: Path, query: string, key: string | null = BOOTSTRAP_KEY): Promise<RawResponse> {
    const headers: Record<string, string | number> = { accept: "application/json" };
    if (key !== null) headers["x-api-key"] = key;
    if (path === "get")
      return send(port, { method: "GET", path: `/graphql?${new URLSearchParams({ query })}`, headers });
    const body = Buffer.from(JSON.stringify({ query }));
    headers["content-type"] = "application/json";
    if (path === "door") headers["content-length"] = body.length;
    else headers["transfer-encoding"] = "chunked";
    return send(port, { method: "POST", path: "/graphql", headers, body });
  }

  /** The answer and how many times graphql-js parsed and validated while it was made. */
  async function counted(fn: () => Promise<RawResponse>) {
    parseCalls.mockClear();
    validateCalls.mockClear();
    const res = await fn();
    return { res, parses: parseCalls.mock.calls.length, validations: validateCalls.mock.calls.length };
  }

  const PATHS: Path[] = ["door", "express", "get"];
  // A GET carries its document in the request line, which Node bounds with the headers (16 KiB): the small shapes.
  const cases = BOMBS.flatMap((b) =>
    PATHS.filter((path) => path !== "get" || new URLSearchParams({ query: b.query }).toString().length < 12_000).map(
      (path) => ({ ...b, path }),
    ),
  );

  it.each(cases)(
    "refuses $name via $path before validate(), with a key: 400 $reason",
    async ({ query, reason, path }) => {
      // Twice: the second is answered from the verdict kept by text, and still never validated.
      for (let i = 0; i < 2; i++) {
        const { res, validations } = await counted(() => ask(path, query));
        expect(res.status).toBe(400);
        expect(res.json).toEqual({
          errors: [
            {
              message: expect.any(String),
              extensions: {
                code: "GRAPHQL_VALIDATION_FAILED",
                reason,
                limit: expect.any(Number),
                actual: expect.any(Number),
              },
            },
          ],
        });
        expect(validations).toBe(0);
      }
    },
  );

  it.each(cases)("refuses $name via $path without a key: 401, nothing parsed or validated", async ({ query, path }) => {
    const { res, parses, validations } = await counted(() => ask(path, query, null));
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ errors: [{ extensions: { code: "UNAUTHENTICATED" } }] });
    expect((res.json as { data?: unknown }).data).toBeUndefined();
    expect({ parses, validations }).toEqual({ parses: 0, validations: 0 });
  });

  it.each([null, "mdg_unknown", ""])("answers a request with the key %p 401 before parsing it", async (key) => {
    for (const path of PATHS) {
      const { res, parses } = await counted(() => ask(path, `{ ${BTC} { c } }`, key));
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ errors: [{ extensions: { code: "UNAUTHENTICATED" } }] });
      expect(parses).toBe(0);
    }
  });

  it("still answers a document within the bounds, validated as before", async () => {
    // One text per path: a text validated once is not validated again (Apollo's document store, the fast path's).
    const within = (path: Path) => `query ${path} { ${BTC} { ${copies(100, () => "historicalPrice { day }")} } }`;
    for (const path of PATHS) {
      const { res, validations } = await counted(() => ask(path, within(path)));
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ data: { quote: { historicalPrice: { day: expect.any(Number) } } } });
      expect(validations).toBeGreaterThan(0);
    }
  });

  it("answers a new text within the bounds with the locations of its errors, on every path", async () => {
    // The bounds are checked on a parse without locations; what runs is parsed with them.
    for (const path of PATHS) {
      const query = `query located${path} {\n  quotes(symbols: ${JSON.stringify(Array(101).fill("BTC-USD"))}) { c }\n}`;
      const res = await ask(path, query);
      expect(res.json).toMatchObject({
        errors: [{ path: ["quotes"], locations: [{ line: 2, column: 3 }], extensions: { code: "BAD_USER_INPUT" } }],
      });
    }
  });

  it.each([
    ["mutation { __typename }", /mutation/],
    ["subscription { __typename }", /subscription/],
    ["query Q { __typename } mutation M { __typename }", /mutation/],
  ])("refuses %s as the client's mistake: 400 BAD_REQUEST, no error logged", async (query, message) => {
    lines.length = 0;
    for (const path of ["door", "express"] as const) {
      const keyed = await ask(path, query);
      expect(keyed.status).toBe(400);
      expect(keyed.json).toEqual({
        errors: [{ message: expect.stringMatching(message), extensions: { code: "BAD_REQUEST" } }],
      });
      const anonymous = await ask(path, query, null);
      expect(anonymous.status).toBe(401);
    }
    // A GET is refused the same way (Apollo would answer 405 only after validating it).
    const get = await ask("get", query);
    expect(get.status).toBe(400);
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(JSON.stringify(lines)).not.toMatch(/stack/);
  });
});
