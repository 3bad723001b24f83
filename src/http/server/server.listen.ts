import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StartupError } from "../../platform/errors";

/**
 * `server.listen` as a promise that resolves with the port bound (useful with `PORT=0`) and rejects with a
 * StartupError naming the variable to fix, instead of the raw "Unhandled 'error' event" stack a listen error
 * otherwise ends the process with.
 */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      reject(listenError(err, port, host));
    };
    const onListening = () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

/** The one line an operator needs for each way `listen` fails. */
export function listenError(err: NodeJS.ErrnoException, port: number, host: string): StartupError {
  const where = `${host}:${port}`;
  switch (err.code) {
    case "EADDRINUSE":
      return new StartupError(
        `PORT: ${port} is already in use on ${host} (EADDRINUSE); stop what holds it or set another PORT`,
      );
    case "EACCES":
      return new StartupError(`PORT: ${port} needs privileges this process lacks (EACCES); set a PORT above 1023`);
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_FAIL":
    case "EAI_NONAME":
      return new StartupError(
        `HOST: ${JSON.stringify(host)} does not resolve to an address (${err.code}); ` +
          "set HOST to an address of this machine, such as 0.0.0.0, 127.0.0.1 or ::",
      );
    case "EADDRNOTAVAIL":
      return new StartupError(
        `HOST: ${JSON.stringify(host)} is not an address of this machine (EADDRNOTAVAIL); ` +
          "set HOST to one of its addresses, or 0.0.0.0 for all",
      );
    default:
      return new StartupError(`HOST, PORT: cannot listen on ${where} (${err.code ?? err.message})`);
  }
}
