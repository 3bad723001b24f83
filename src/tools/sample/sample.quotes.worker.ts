import { workerData } from "node:worker_threads";
import { runQuoteJob, type QuoteJob } from "./sample.quotes";

/**
 * The helper thread of a sample store build (started by sample.quotes.ts): runs paths not stored for their quotes,
 * taking them from the counter it shares with the build thread, until none is left.
 */
runQuoteJob(workerData as QuoteJob);
