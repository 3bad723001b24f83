import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { ApiKeyStore } from "../../../src/platform/auth/auth.types";
import { loadConfig } from "../../../src/platform/config";
import type { MarketDataSource } from "../../../src/domain/ports/source.capabilities";
import { openSources } from "../../../src/app.sources";
import { TEST_STORE_PATH } from "../../helpers/constants";
import { createTestDatabase } from "../../helpers/postgres";

/** One process's view of an adapter's store. */
export interface OpenedSources {
  market: MarketDataSource;
  keys: ApiKeyStore;
  close(): Promise<void>;
}

/**
 * An adapter the conformance suite runs against. A new adapter needs only a
 * new entry in ADAPTERS: how to open it on a store holding the generated
 * test data set (test/global-setup.ts), and what that store is known to hold.
 */
export interface AdapterUnderTest {
  name: string;
  /** Why the adapter cannot run here (e.g. DATABASE_URL unset); it runs when undefined. */
  skip?: string;
  /**
   * Prepares a store the suite may write (API keys) and returns how to open
   * it; each `open()` is a fresh process's or replica's view of the same data.
   */
  setUp(): Promise<{ open(): Promise<OpenedSources>; tearDown(): Promise<void> }>;
  /** Keys the data set is known to hold, that the suite cannot discover through the capabilities. */
  known: { indexSymbol: string; fxCurrency: string };
}

const sqlite: AdapterUnderTest = {
  name: "sqlite",
  async setUp() {
    // A private copy: the suite writes API keys.
    const dir = mkdtempSync(join(tmpdir(), "mdg-conformance-"));
    const copy = join(dir, "store.db");
    const src = new Database(TEST_STORE_PATH, { readonly: true });
    src.exec(`VACUUM INTO '${copy.replace(/'/g, "''")}'`);
    src.close();
    const config = loadConfig({ MDG_DATA_SOURCE: "sqlite", MDG_SQLITE_PATH: copy, LOG_LEVEL: "silent" });
    return {
      open: () => openSources(config, { buildSample: false }),
      tearDown: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  known: { indexSymbol: "MDG100", fxCurrency: "EUR" },
};

const postgres: AdapterUnderTest = {
  name: "postgres",
  skip: process.env.DATABASE_URL ? undefined : "DATABASE_URL unset",
  async setUp() {
    // A database of its own, holding the same data set, copied as a first start copies the sample.
    const db = await createTestDatabase("conf", { load: true });
    const config = loadConfig({ MDG_DATA_SOURCE: "postgres", DATABASE_URL: db.url, LOG_LEVEL: "silent" });
    return { open: () => openSources(config, { buildSample: false }), tearDown: () => db.drop() };
  },
  known: { indexSymbol: "MDG100", fxCurrency: "EUR" },
};

/* Next: the upstream adapter against a second instance of this service. */
export const ADAPTERS: readonly AdapterUnderTest[] = [sqlite, postgres];
