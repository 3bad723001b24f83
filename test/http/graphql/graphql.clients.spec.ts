import { createHash } from "node:crypto";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from "@apollo/client";
import { createPersistedQueryLink } from "@apollo/client/link/persisted-queries";
import { createClient as createUrqlClient, fetchExchange, gql as urqlGql } from "@urql/core";
import { GraphQLClient, gql as requestGql } from "graphql-request";
import pino from "pino";
import { createHttpServer } from "../../../src/http/server/server.http";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { listen, send } from "../../helpers/http";

/**
 * The common GraphQL clients, each with its defaults, against the real server
 * on a port: Apollo Client 4 (InMemoryCache, persisted queries), urql 6
 * (queries as GET) and graphql-request 7. Every request they make is recorded
 * by a fetch that passes it on unchanged.
 */

let t: TestApp;
let port: number;
let url: string;
let close: () => Promise<void>;
let stock: { symbol: string; currency: string; isin: string };
let etf: string;

interface Sent {
  method: string;
  url: string;
  body: string | null;
}

/** The global fetch, recording what a client sends. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const target = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    sent.push({ method: init?.method ?? "GET", url: target, body: typeof init?.body === "string" ? init.body : null });
    return fetch(input, init);
  };
}

beforeAll(async () => {
  t = await createTestApp();
  ({ port, close } = await listen(createHttpServer(t.app, pino({ level: "silent" }))));
  url = `http://127.0.0.1:${port}/graphql`;
  stock = t.source.db
    .prepare(
      `SELECT l.symbol, l.currency, s.isin FROM listings l JOIN securities s ON s.id = l.security_id
        WHERE s.type = 'stock' AND l.is_primary = 1 AND l.currency = 'USD' AND s.isin IS NOT NULL
        ORDER BY s.rank LIMIT 1`,
    )
    .get() as typeof stock;
  etf = (
    t.source.db
      .prepare(
        `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'etf'
          AND l.is_primary = 1 ORDER BY s.rank LIMIT 1`,
      )
      .get() as { symbol: string }
  ).symbol;
});
afterAll(async () => {
  await close();
  await t.close();
});

interface QuoteData {
  quote: { id: string; symbol: string; currency: string; c: number };
}
interface EtfProfileData {
  etf: { id: string; symbol: string; profile: { id: string; name: string; nav: number; navCurrency: string } };
}
interface EtfHoldingsData {
  etf: {
    id: string;
    symbol: string;
    holdings: { id: string; atDate: string; holdings: { id: string; name: string; percent: number }[] };
  };
}

const QUOTE: TypedDocumentNode<QuoteData, { symbol: string; currency?: string }> = apolloGql`
  query Quote($symbol: String!, $currency: String) {
    quote(symbol: $symbol, currency: $currency) { id symbol currency c }
  }
`;
const ETF_PROFILE: TypedDocumentNode<EtfProfileData, { symbol: string }> = apolloGql`
  query EtfProfile($symbol: String!) {
    etf(symbol: $symbol) { id symbol profile { id name nav navCurrency } }
  }
`;
const ETF_HOLDINGS: TypedDocumentNode<EtfHoldingsData, { symbol: string }> = apolloGql`
  query EtfHoldings($symbol: String!) {
    etf(symbol: $symbol) { id symbol holdings { id atDate holdings { id name percent } } }
  }
`;

function apollo(sent: Sent[] = []) {
  return new ApolloClient({
    link: new HttpLink({ uri: url, headers: { "x-api-key": BOOTSTRAP_KEY }, fetch: recordingFetch(sent) }),
    cache: new InMemoryCache(),
  });
}

describe("Apollo Client 4 with InMemoryCache and no type policies", () => {
  it("keeps a EUR and a USD quote of one symbol apart", async () => {
    const client = apollo();
    const usd = await client.query({ query: QUOTE, variables: { symbol: stock.symbol } });
    const eur = await client.query({ query: QUOTE, variables: { symbol: stock.symbol, currency: "EUR" } });
    expect(usd.data!.quote.currency).toBe("USD");
    expect(eur.data!.quote.currency).toBe("EUR");
    expect(eur.data!.quote.c).not.toBe(usd.data!.quote.c);

    // Both are normalised entities, and neither overwrote the other.
    const stored = client.cache.extract() as Record<string, { currency?: string }>;
    expect(stored[`Quote:${usd.data!.quote.id}`]?.currency).toBe("USD");
    expect(stored[`Quote:${eur.data!.quote.id}`]?.currency).toBe("EUR");
    const again = client.readQuery({ query: QUOTE, variables: { symbol: stock.symbol } });
    expect(again!.quote).toEqual(usd.data!.quote);
  });

  it("keeps an ETF's profile when the ETF is fetched again for its holdings", async () => {
    const client = apollo();
    const first = await client.query({ query: ETF_PROFILE, variables: { symbol: etf } });
    expect(first.data!.etf.profile.name).toBeTruthy();
    const second = await client.query({ query: ETF_HOLDINGS, variables: { symbol: etf } });
    expect(second.data!.etf.id).toBe(first.data!.etf.id);
    expect(second.data!.etf.holdings.holdings.length).toBeGreaterThan(0);

    const cached = client.readQuery({ query: ETF_PROFILE, variables: { symbol: etf } });
    expect(cached!.etf.profile).toEqual(first.data!.etf.profile);
    const stored = client.cache.extract() as Record<string, unknown>;
    expect(stored[`Etf:${first.data!.etf.id}`]).toBeDefined();
    expect(stored[`EtfProfile:${first.data!.etf.profile.id}`]).toBeDefined();
    expect(stored[`EtfHoldings:${second.data!.etf.holdings.id}`]).toBeDefined();
    // Every position is its own entity: none overwrote another.
    const positions = Object.keys(stored).filter((k) => k.startsWith("EtfHolding:"));
    expect(positions).toHaveLength(second.data!.etf.holdings.holdings.length);
  });

  it("gives the same ids to the same things in another app over the same store (a restart)", async () => {
    const other = await createTestApp();
    try {
      const server = await listen(createHttpServer(other.app, pino({ level: "silent" })));
      try {
        const query = `{ etf(symbol: "${etf}") { id profile { id } holdings { id holdings { id } } } }`;
        const ask = async (p: number) =>
          (
            await send(p, {
              method: "POST",
              path: "/graphql",
              headers: { "content-type": "application/json", "x-api-key": BOOTSTRAP_KEY },
              body: Buffer.from(JSON.stringify({ query })),
            })
          ).json;
        const [a, b] = [await ask(port), await ask(server.port)];
        expect(a).toMatchObject({ data: { etf: { id: expect.any(String) } } });
        expect(b).toEqual(a);
      } finally {
        await server.close();
      }
    } finally {
      await other.close();
    }
  });

  it("runs automatic persisted queries, over GET for hashed queries: a miss is retried with the query", async () => {
    const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
    const run = async () => {
      const sent: Sent[] = [];
      const link = createPersistedQueryLink({ sha256, useGETForHashedQueries: true }).concat(
        new HttpLink({ uri: url, headers: { "x-api-key": BOOTSTRAP_KEY }, fetch: recordingFetch(sent) }),
      );
      const client = new ApolloClient({ link, cache: new InMemoryCache() });
      const { data } = await client.query({ query: QUOTE, variables: { symbol: stock.symbol, currency: "GBP" } });
      return { data, sent };
    };
    // A query the server has never seen: the hash alone (GET) misses, then the query with its hash registers it.
    const first = await run();
    expect(first.data!.quote.currency).toBe("GBP");
    expect(first.sent.map((s) => s.method)).toEqual(["GET", "POST"]);
    expect(first.sent[0]!.url).toContain("persistedQuery");
    expect(first.sent[0]!.url).not.toContain("query=");
    // Another client: the hash alone is enough now.
    const second = await run();
    expect(second.data).toEqual(first.data);
    expect(second.sent.map((s) => s.method)).toEqual(["GET"]);
  });
});

describe("urql 6 with its defaults (queries as GET)", () => {
  it("answers a query sent as GET with x-api-key", async () => {
    const sent: Sent[] = [];
    const client = createUrqlClient({
      url,
      exchanges: [fetchExchange],
      fetch: recordingFetch(sent),
      fetchOptions: { headers: { "x-api-key": BOOTSTRAP_KEY } },
    });
    const result = await client
      .query(urqlGql`query Q($s: String!) { quote(symbol: $s) { id symbol currency } }`, { s: stock.symbol })
      .toPromise();
    expect(result.error).toBeUndefined();
    expect(result.data).toMatchObject({ quote: { symbol: stock.symbol, currency: "USD" } });
    expect(sent.map((s) => s.method)).toEqual(["GET"]);
  });

  it("gets the error of a refused key as a GraphQL error, not a CSRF refusal", async () => {
    const client = createUrqlClient({
      url,
      exchanges: [fetchExchange],
      fetchOptions: { headers: { "x-api-key": "not-a-key" } },
    });
    const result = await client.query(urqlGql`{ quote(symbol: "BTC-USD") { symbol } }`, {}).toPromise();
    expect(result.error?.graphQLErrors[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });
});

describe("graphql-request 7", () => {
  it("answers with its defaults (POST) and as GET", async () => {
    const document = requestGql`query Q($s: String!) { quote(symbol: $s) { id symbol currency } }`;
    for (const method of ["POST", "GET"] as const) {
      const sent: Sent[] = [];
      const client = new GraphQLClient(url, {
        method,
        headers: { "x-api-key": BOOTSTRAP_KEY },
        fetch: recordingFetch(sent),
      });
      const data = await client.request<{ quote: { symbol: string } }>(document, { s: stock.symbol });
      expect(data.quote.symbol).toBe(stock.symbol);
      expect(sent.map((s) => s.method)).toEqual([method]);
    }
  });
});

describe("GET /graphql and persisted queries over plain HTTP", () => {
  const query = '{ quote(symbol: "BTC-USD") { symbol currency } }';
  const get = (search: string, headers: Record<string, string> = {}) =>
    send(port, { method: "GET", path: `/graphql?${search}`, headers });

  it("refuses a GET without x-api-key (what a form or an <img> could send) 401, before anything reads it", async () => {
    const res = await get(new URLSearchParams({ query }).toString());
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ errors: [{ extensions: { code: "UNAUTHENTICATED" } }] });
  });

  it("refuses a mutation over GET, even with a key", async () => {
    const res = await get(new URLSearchParams({ query: "mutation { quote }" }).toString(), {
      "x-api-key": BOOTSTRAP_KEY,
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ errors: [expect.anything()] });
    expect((res.json as { data?: unknown }).data).toBeUndefined();
  });

  it("answers PersistedQueryNotFound for an unknown hash, registers on POST, then serves the hash on GET", async () => {
    const text = `${query} # ${Date.now()}`;
    const hash = createHash("sha256").update(text).digest("hex");
    const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } });
    const byHash = new URLSearchParams({ extensions }).toString();

    const miss = await get(byHash, { "x-api-key": BOOTSTRAP_KEY });
    expect(miss.status).toBe(200);
    expect(miss.json).toEqual({
      errors: [{ message: "PersistedQueryNotFound", extensions: { code: "PERSISTED_QUERY_NOT_FOUND" } }],
    });

    const body = Buffer.from(JSON.stringify({ query: text, extensions: JSON.parse(extensions) as unknown }));
    const register = await send(port, {
      method: "POST",
      path: "/graphql",
      headers: { "content-type": "application/json", "x-api-key": BOOTSTRAP_KEY, "content-length": body.length },
      body,
    });
    expect(register.json).toEqual({ data: { quote: { symbol: "BTC-USD", currency: "USD" } } });

    const hit = await get(byHash, { "x-api-key": BOOTSTRAP_KEY });
    expect(hit.status).toBe(200);
    expect(hit.json).toEqual(register.json);
  });

  it("refuses a hash that does not match its query", async () => {
    const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: "0".repeat(64) } });
    const res = await get(new URLSearchParams({ query, extensions }).toString(), { "x-api-key": BOOTSTRAP_KEY });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ errors: [{ message: "provided sha does not match query" }] });
  });
});
