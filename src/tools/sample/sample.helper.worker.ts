import { workerData } from "node:worker_threads";
import { runBarsJob, runQuoteJob, type HelperJob } from "./sample.helper";

/**
 * The helper thread of a sample store build (started by sample.helper.ts): writes the stored paths' bars into its
 * scratch file, then runs paths not stored for their quotes, taking them from the counter it shares with the build
 * thread, until none is left.
 */
const job = workerData as HelperJob;
if (job.bars) runBarsJob(job.bars, job.quotes.seed, job.quotes.historyStart, job.quotes.anchorDay);
runQuoteJob(job.quotes);
