import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { crc32, deflateRawSync } from "node:zlib";
import { main, openIngestSink } from "../../src/application/cli/ingest.cli";
import { type Config, loadConfig } from "../../src/platform/config";
import { providerHttp } from "../../src/sources/providers/provider.registry";

/** How the local provider answers one request to a path; called with how many times the path was asked before. */
export type Answer = (res: ServerResponse, hit: number, req: IncomingMessage) => void;

/** A local HTTP server standing in for a provider's host, at the provider's own paths. */
export interface ProviderServer {
  url: string;
  /** Requests per path (query strings left out). */
  hits: Map<string, number>;
  /** Sets (or replaces) how a path is answered. */
  route(path: string, answer: Answer): void;
  close(): Promise<void>;
}

export function serve(body: Buffer | string, contentType: string): Answer {
  return (res) => {
    res.writeHead(200, { "content-type": contentType });
    res.end(body);
  };
}

export async function startProviderServer(routes: Record<string, Answer> = {}): Promise<ProviderServer> {
  const table = new Map(Object.entries(routes));
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const n = hits.get(path) ?? 0;
    hits.set(path, n + 1);
    const answer = table.get(path);
    if (!answer) {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<html>Not Found</html>");
      return;
    }
    answer(res, n, req);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    route: (path, answer) => table.set(path, answer),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A ZIP archive of one deflated file, laid out as the ECB's `eurofxref-hist.zip` is (a local header with its sizes,
 * no data descriptor, one central directory entry, no comment), for serving a trimmed copy of the CSV.
 */
export function zipOf(name: string, data: Buffer, method: 0 | 8 = 8): Buffer {
  const body = method === 8 ? deflateRawSync(data) : data;
  const file = Buffer.from(name, "utf8");
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0, 6);
  local.writeUInt16LE(method, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(body.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(file.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(0, 8);
  central.writeUInt16LE(method, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(body.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(file.length, 28);
  central.writeUInt32LE(0, 42);
  const centralAt = local.length + file.length + body.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + file.length, 12);
  end.writeUInt32LE(centralAt, 16);
  return Buffer.concat([local, file, body, central, file, end]);
}

/**
 * `npm run ingest -- <args>` run in this process as the CLI runs it, into the store `config` names (a SQLite path
 * that does not exist yet is created, as the CLI creates it).
 */
export async function ingestCli(
  config: Config,
  args: string[],
  report: string,
): Promise<{ code: number; err: string[]; text: string }> {
  const err: string[] = [];
  const code = await main([...args, "--report", report], {
    http: (name) => providerHttp(name, config.providers),
    storeExists: () => config.dataSource !== "sqlite" || existsSync(config.sqlitePath),
    openSink: () => openIngestSink(config),
    out: { log: (l) => err.push(l), error: (l) => err.push(l) },
    tty: false,
  });
  return { code, err, text: err.join("\n") };
}

/** Rows of a SQLite store, read on a connection of its own, as another process sees them. */
export function storeRows<T>(store: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(store, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/**
 * The facts of a recorded `companyfacts` file, read as the tests check them: `fact(concept, start, end, accn)` is
 * the value of `concept` (`us-gaap` unless written `dei:…`) over `start`..`end` (a balance: `start` undefined, at
 * `end`) in the filing `accn`, in whatever unit it has; throws when the file holds no such fact.
 */
export function recordedFacts(
  body: Buffer,
): (concept: string, start: string | undefined, end: string, accn: string) => number {
  interface Fact {
    start?: string;
    end: string;
    val: number;
    accn: string;
  }
  const doc = JSON.parse(body.toString("utf8")) as {
    facts: Record<string, Record<string, { units: Record<string, Fact[]> } | undefined> | undefined>;
  };
  return (concept, start, end, accn) => {
    const [taxonomy, name] = concept.includes(":") ? concept.split(":") : ["us-gaap", concept];
    const units = doc.facts[taxonomy!]?.[name!]?.units ?? {};
    const f = Object.values(units)
      .flat()
      .find((x) => x.start === start && x.end === end && x.accn === accn);
    if (!f) throw new Error(`no recorded ${concept} ${start ?? ""}..${end} in ${accn}`);
    return f.val;
  };
}

/** The User-Agent the SEC tests give as MDG_SEC_USER_AGENT. */
export const SEC_AGENT = "Example Research ops@example.com";

/**
 * The configuration of an SEC run against `server`, which answers both of the SEC's hosts (www.sec.gov and
 * data.sec.gov), into the SQLite store at `store`.
 */
export function secConfig(server: ProviderServer, store: string, env: NodeJS.ProcessEnv = {}): Config {
  return loadConfig({
    MDG_SQLITE_PATH: store,
    MDG_PROVIDER_SEC_URL: server.url,
    MDG_PROVIDER_SEC_DATA_URL: `${server.url}/`,
    MDG_SEC_USER_AGENT: SEC_AGENT,
    LOG_LEVEL: "silent",
    ...env,
  });
}
