import type { IncomingMessage, ServerResponse } from "node:http";
import { connect, createServer as createNetServer, type AddressInfo } from "node:net";
import pino from "pino";
import { listenEarly } from "../../../src/http/server/server.startup";
import { send } from "../../helpers/http";

/**
 * What a load balancer sees of one replica around its start and its SIGTERM: with `listenWhenReady` a starting
 * replica refuses connections (retried elsewhere) instead of answering 500; once draining, `/readyz` answers 503 on
 * any request that still reaches the process, while the request under way finishes with 200.
 */
const logger = pino({ level: "silent" });

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createNetServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(false);
    });
    s.once("error", (e: NodeJS.ErrnoException) => resolve(e.code === "ECONNREFUSED"));
  });
}

/** An app whose `/slow` answers only when `release` is called; `/readyz` answers 200 as the real app does. */
function slowApp() {
  let began: () => void = () => undefined;
  const started = new Promise<void>((r) => (began = r));
  let pending: ServerResponse | undefined;
  const app = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === "/slow") {
      pending = res;
      began();
      return;
    }
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ status: "ready" }));
  };
  return { app, started, release: () => pending?.end("slow done") };
}

describe("listenWhenReady", () => {
  it("refuses connections until the app is mounted, then answers on the configured port", async () => {
    const port = await freePort();
    const early = await listenEarly({ port, host: "127.0.0.1", listenWhenReady: true }, logger);
    try {
      expect(await refused(port)).toBe(true);
      await early.mount(slowApp().app);
      expect(early.port).toBe(port);
      const res = await send(port, { method: "GET", path: "/readyz" });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ status: "ready" });
    } finally {
      await early.close();
    }
  });

  it("without it, a starting replica listens at once and answers /readyz 500 with its phase", async () => {
    const early = await listenEarly({ port: 0, host: "127.0.0.1" }, logger);
    try {
      const res = await send(early.port, { method: "GET", path: "/readyz" });
      expect(res.status).toBe(500);
      expect(res.json).toMatchObject({ code: "INTERNAL", status: "starting" });
    } finally {
      await early.close();
    }
  });
});

describe("/readyz after SIGTERM", () => {
  it("answers 503 draining while other paths are served; then the drain refuses and finishes the rest", async () => {
    const early = await listenEarly({ port: 0, host: "127.0.0.1" }, logger);
    const { app, started, release } = slowApp();
    await early.mount(app);
    const port = early.port;
    try {
      expect((await send(port, { method: "GET", path: "/readyz" })).status).toBe(200);
      const slow = send(port, { method: "GET", path: "/slow" });
      await started;

      early.markUnready();
      const probe = await send(port, { method: "GET", path: "/readyz", headers: { "x-request-id": "probe-1" } });
      expect(probe.status).toBe(503);
      expect(probe.json).toEqual({ status: "draining" });
      expect(probe.headers["x-request-id"]).toBe("probe-1");
      // Everything but the readiness check is still answered during MDG_SHUTDOWN_DELAY_MS.
      expect((await send(port, { method: "GET", path: "/other" })).status).toBe(200);

      const drained = early.connections.drain(10_000);
      expect(await refused(port)).toBe(true);
      release();
      const answer = await slow;
      expect(answer.status).toBe(200);
      expect(answer.body.toString("utf8")).toBe("slow done");
      expect(answer.headers.connection).toBe("close");
      expect(await drained).toMatchObject({ drained: true, abandoned: 0 });
    } finally {
      await early.close();
    }
  });
});
