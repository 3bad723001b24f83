/**
 * GraphiQL for a browser that opens /graphql, served entirely by this
 * service: graphiql 3's prebuilt browser bundle and React 18's UMD builds,
 * straight from node_modules, so it works with no internet (Apollo's default
 * landing page loads Apollo Sandbox and fonts from the internet and is blank
 * offline). The page references no outside host, and its Content-Security-
 * Policy forbids the browser to reach one.
 *
 * Mount the router before Apollo and before any API-key check: a browser
 * navigation cannot send `x-api-key`; the key goes into GraphiQL's headers
 * editor and from there on every request the page makes.
 *
 *   app.use(graphiqlHandler({ endpoint: "/graphql" }));
 *   app.all("/graphql", express.json(), expressMiddleware(apollo));
 *
 * The page route answers only when `wantsGraphiql(req)`; anything else on the
 * endpoint falls through to the next handler.
 */
import { type NextFunction, type Request, type Response, Router } from "express";
import {
  contentAsset,
  CSS,
  escapeHtml,
  JS,
  jsonForScript,
  packageAsset,
  PAGE_HEADERS,
  precompress,
  serveAssets,
  type Asset,
} from "../http.static-assets";

/** Where the assets are served, under the router's mount path. */
export const GRAPHIQL_ASSETS_PATH = "/graphiql-assets";

export interface GraphiqlOptions {
  /** Path of the GraphQL endpoint, under the router's mount path: the page is served there and posts there. */
  endpoint: string;
}

/**
 * A browser asking for a page: GET (or HEAD) whose Accept prefers HTML over
 * every GraphQL response type. `*\/*` or no Accept at all is not a browser
 * navigation, and a client listing JSON first gets JSON, as Apollo decides.
 */
export function wantsGraphiql(req: Pick<Request, "method" | "accepts">): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  return (
    req.accepts(["application/graphql-response+json", "application/json", "multipart/mixed", "text/html"]) ===
    "text/html"
  );
}

export function graphiqlHandler(opts: GraphiqlOptions): Router {
  if (!opts.endpoint.startsWith("/")) {
    throw new Error(`graphiqlHandler: endpoint must be a path starting with "/", got ${JSON.stringify(opts.endpoint)}`);
  }
  const assets = loadAssets();
  const router = Router();

  router.get(opts.endpoint, (req: Request, res: Response, next: NextFunction) => {
    if (!wantsGraphiql(req)) return next();
    precompress(assets.list);
    // The same URL answers JSON to GraphQL clients.
    res.set({ ...PAGE_HEADERS, Vary: "Accept" });
    res.send(renderPage(req.baseUrl, req.baseUrl + opts.endpoint, assets));
  });
  serveAssets(router, GRAPHIQL_ASSETS_PATH, assets.list);

  return router;
}

interface Assets {
  react: Asset;
  reactDom: Asset;
  graphiqlJs: Asset;
  /** graphql-ws's browser client: GraphiQL runs subscriptions over it. */
  graphqlWs: Asset;
  graphiqlCss: Asset;
  init: Asset;
  list: Asset[];
}

let cached: Assets | undefined;

/** Reads the bundles once per process (about 4 MB) and names each by a hash of its content. */
function loadAssets(): Assets {
  if (cached) return cached;
  const file = (pkg: string, name: string, type: string) => packageAsset(GRAPHIQL_ASSETS_PATH, pkg, name, type);
  const react = file("react", "umd/react.production.min.js", JS);
  const reactDom = file("react-dom", "umd/react-dom.production.min.js", JS);
  const graphiqlJs = file("graphiql", "graphiql.min.js", JS);
  const graphiqlCss = file("graphiql", "graphiql.min.css", CSS);
  const graphqlWs = file("graphql-ws", "umd/graphql-ws.min.js", JS);
  const init = contentAsset(GRAPHIQL_ASSETS_PATH, "graphiql-init.js", Buffer.from(INIT_SCRIPT, "utf8"), JS);
  const list = [react, reactDom, graphiqlJs, graphiqlCss, graphqlWs, init];
  cached = { react, reactDom, graphiqlJs, graphiqlCss, graphqlWs, init, list };
  return cached;
}

const DEFAULT_QUERY = `# market-data-gateway GraphQL explorer
#
# Every request needs an API key. Open the "Headers" tab below and fill it in:
#
#   { "x-api-key": "mdg_..." }
#
# then re-fetch the schema (the circular-arrows button on the left, or
# Shift+Ctrl+R) so that autocompletion and the documentation work.
# Keys are made with the key tool: npm run keys -- create --name NAME --scopes etf,stock
# (a first local start with no key writes one to data/dev-key: see the README)
#
# Run a query with Ctrl+Enter. Subscriptions (quoteUpdated, candleUpdated) run
# over a WebSocket to the same endpoint, with the same key, and show each change.

{
  __typename
}
`;

const DEFAULT_HEADERS = `{
  "x-api-key": ""
}`;

function renderPage(baseUrl: string, endpoint: string, assets: Assets): string {
  const url = (a: Asset) => escapeHtml(baseUrl + a.urlPath);
  const config = { endpoint, defaultQuery: DEFAULT_QUERY, defaultHeaders: DEFAULT_HEADERS };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL · market-data-gateway</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${url(assets.graphiqlCss)}">
<style>html, body { height: 100%; margin: 0; } #graphiql { height: 100vh; }</style>
</head>
<body>
<div id="graphiql"><noscript>GraphiQL needs JavaScript.</noscript></div>
<script type="application/json" id="graphiql-config">${jsonForScript(config)}</script>
<script src="${url(assets.react)}"></script>
<script src="${url(assets.reactDom)}"></script>
<script src="${url(assets.graphiqlJs)}"></script>
<script src="${url(assets.graphqlWs)}"></script>
<script src="${url(assets.init)}"></script>
</body>
</html>
`;
}

/**
 * Runs in the browser. Served as a file, not inline, so the policy can keep
 * `script-src 'self'`. The fetcher posts JSON to the endpoint with the headers
 * from GraphiQL's headers editor; cookies are never sent (the API key is the
 * only credential). Headers persist in localStorage only if the user turns
 * that on in GraphiQL's settings. A subscription goes over graphql-ws to the
 * same endpoint (ws: or wss: as the page), the headers editor's `x-api-key`
 * in `connection_init`; one socket per key, made on the first subscription.
 */
const INIT_SCRIPT = `(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("graphiql-config").textContent);

  // The headers editor's text as last edited. GraphiQL hands its schema fetch the headers it read at its last render,
  // which can be older than what was just typed (a re-fetch right after typing the key went without it): every
  // request, introspection included, takes the editor's current headers when they are valid JSON.
  var edited = null;
  function currentHeaders(given) {
    if (edited !== null) {
      try {
        var parsed = JSON.parse(edited);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
      } catch (e) {
        // Not JSON (yet): what GraphiQL gave.
      }
    }
    return given || {};
  }

  // The operation GraphiQL runs is a subscription: its definition (the one named, or the only one) says so. Comments
  // and strings are blanked first, so a word inside them does not count.
  function isSubscription(params) {
    var text = String(params.query || "")
      .replace(/"""[\\s\\S]*?"""/g, '""')
      .replace(/"(?:[^"\\\\\\n]|\\\\.)*"/g, '""')
      .replace(/#[^\\n]*/g, "");
    var re = /(?:^|\\})\\s*(query|mutation|subscription)\\b\\s*([_A-Za-z][_0-9A-Za-z]*)?|(?:^|\\})\\s*\\{/g;
    var m;
    var found = [];
    while ((m = re.exec(text)) !== null) found.push({ type: m[1] || "query", name: m[2] });
    var wanted = params.operationName
      ? found.filter(function (o) {
          return o.name === params.operationName;
        })[0]
      : found[0];
    return !!wanted && wanted.type === "subscription";
  }

  var ws = { key: null, client: null };
  function wsClient(key) {
    if (ws.client && ws.key === key) return ws.client;
    if (ws.client) ws.client.dispose();
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + config.endpoint;
    ws.key = key;
    ws.client = graphqlWs.createClient({
      url: url,
      connectionParams: { "x-api-key": key },
      retryAttempts: 0,
    });
    return ws.client;
  }

  // GraphiQL shows what a subscription pushes, one result after another, from this observable.
  function subscribe(params, headers) {
    var key = headers["x-api-key"] || "";
    return {
      subscribe: function (observer) {
        var dispose = wsClient(key).subscribe(
          { query: params.query, operationName: params.operationName, variables: params.variables },
          {
            next: function (value) {
              observer.next(value);
            },
            error: function (err) {
              if (Array.isArray(err)) {
                observer.next({ errors: err });
                observer.complete();
              } else if (err && typeof err.code === "number") {
                // The socket closed: a refused key says why in the close reason (4401, 4403).
                observer.next({ errors: [{ message: "the connection closed (" + err.code + "): " + err.reason }] });
                observer.complete();
              } else observer.error(err instanceof Error ? err : new Error(String(err)));
            },
            complete: function () {
              observer.complete();
            },
          },
        );
        return { unsubscribe: dispose };
      },
    };
  }

  function fetcher(params, opts) {
    var headers = { "content-type": "application/json", accept: "application/graphql-response+json, application/json" };
    var extra = currentHeaders(opts && opts.headers);
    Object.keys(extra).forEach(function (name) {
      var lower = name.toLowerCase();
      // An empty value (the default headers' "x-api-key": "") is no header: until a key is typed, /graphql answers 401.
      if (lower === "content-type" || lower === "accept" || extra[name] == null || extra[name] === "") return;
      headers[name] = String(extra[name]);
    });
    if (isSubscription(params)) return subscribe(params, headers);
    return fetch(config.endpoint, {
      method: "POST",
      headers: headers,
      body: JSON.stringify(params),
      credentials: "omit",
    }).then(function (res) {
      return res.text().then(function (text) {
        try {
          return JSON.parse(text);
        } catch (e) {
          return { errors: [{ message: "HTTP " + res.status + ": the response is not JSON" }] };
        }
      });
    });
  }

  ReactDOM.createRoot(document.getElementById("graphiql")).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: config.defaultQuery,
      defaultHeaders: config.defaultHeaders,
      onEditHeaders: function (value) {
        edited = value;
      },
      isHeadersEditorEnabled: true,
      defaultEditorToolsVisibility: "headers",
    }),
  );
})();
`;
