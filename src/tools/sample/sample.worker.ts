import { parentPort, workerData } from "node:worker_threads";
import { buildStoreFile, type BuildMessage, type BuildRequest } from "./sample.store";

/**
 * The worker thread of a sample store build (started by ensureSampleStore): builds the store into the scratch file it
 * is given and posts its progress as it goes, then the summary. An error ends the thread and reaches the caller.
 */
const port = parentPort;
if (!port) throw new Error("sample.worker runs only as a worker thread (ensureSampleStore starts it)");
const post = (message: BuildMessage) => port.postMessage(message);
const summary = buildStoreFile(workerData as BuildRequest, (done, total, stage) =>
  post({ type: "progress", done, total, stage }),
);
post({ type: "done", summary });
