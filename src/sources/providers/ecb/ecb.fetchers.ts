import { unzipFirst, ZipFormatError } from "../provider.zip";
import { ProviderFormatError, type ProviderFetcher } from "../provider.types";
import { type EcbTable, parseHistCsv, parseRatesXml } from "./ecb.rates";

/** The whole history since 1999: one CSV inside a ZIP. */
export const histFetcher: ProviderFetcher<void, EcbTable> = {
  request: () => ({ path: "/stats/eurofxref/eurofxref-hist.zip" }),
  transform(res) {
    let csv: Buffer;
    try {
      csv = unzipFirst(res.body).data;
    } catch (e) {
      if (e instanceof ZipFormatError) throw new ProviderFormatError(e.message);
      throw e;
    }
    return parseHistCsv(csv.toString("utf8"));
  },
};

/** The latest working day's rates (published around 16:00 CET). */
export const dailyFetcher: ProviderFetcher<void, EcbTable> = {
  request: () => ({ path: "/stats/eurofxref/eurofxref-daily.xml" }),
  transform: (res) => parseRatesXml(res.body.toString("utf8")),
};
