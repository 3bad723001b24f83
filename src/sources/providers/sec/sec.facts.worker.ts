import { type CompanyQuartersAnswer, parseCompanyFacts, quartersOf } from "./sec.facts";
import { ProviderFormatError } from "../provider.types";

/**
 * One company's `companyfacts` body to its quarters, in a worker thread (sec.facts.ts `readCompanyQuarters`). A
 * body it cannot read is answered as such, since an error's class does not survive the thread's boundary.
 */
export default function companyQuarters(task: { body: Uint8Array }): CompanyQuartersAnswer {
  try {
    const facts = parseCompanyFacts(task.body);
    return { ok: true, cik: facts.cik, quarters: quartersOf(facts) };
  } catch (e) {
    if (e instanceof ProviderFormatError) return { ok: false, format: e.message };
    throw e;
  }
}
