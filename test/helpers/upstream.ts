import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { BOOTSTRAP_KEY } from "./constants";
import { createTestApp, type TestApp, type TestAppOptions } from "./app";

/**
 * A real upstream for gateway tests: a second instance of this service in its embedded SQLite mode, over the test
 * data set, listening on an ephemeral loopback port. Its one key is `key` (the test bootstrap key).
 *
 *     const upstream = await startUpstream();
 *     // MDG_UPSTREAM_URL=upstream.url, MDG_UPSTREAM_API_KEY=upstream.key
 *     await upstream.close();
 */
export interface TestUpstream {
  /** `http://127.0.0.1:<port>`: no trailing slash. */
  url: string;
  port: number;
  /** The key the upstream accepts (every scope). */
  key: string;
  /** The app behind it (its store, its query counter). */
  app: TestApp;
  close(): Promise<void>;
}

export async function startUpstream(opts: TestAppOptions = {}): Promise<TestUpstream> {
  const app = await createTestApp(opts);
  const server: Server = createServer(app.app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    key: BOOTSTRAP_KEY,
    app,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}
