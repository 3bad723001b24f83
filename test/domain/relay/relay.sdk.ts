/**
 * The Bavest endpoints only gateway mode serves, each with the request bodies the Bavest SDKs post and the fields of
 * the Python SDK's response model, read from their sources:
 * - Python: bavest/finance/client/bavest_client.py and urls.py, models under bavest/finance/models/v0/, at
 *   Bavest/python-sdk d6e4d7ab211b5a57e7bf491bed4493452c8552a8;
 * - Dart: lib/client/bavest_rest_client.dart (`SecurityIdentifier.toJson()` sends one of symbol, isin, cusip, wkn),
 *   at Bavest/dart-sdk.
 * Python's `datetime.timestamp()` is a float, so its `from` and `to` carry a fraction.
 */

/**
 * A model's fields as it declares them: `float`, `int`, `str`; `float?` for a field with the default None; `[M]` for
 * `List[M]` (default []); an object model with `"?": "nullable"` for `Union[M, None]`, `"?": "optional"` for
 * `Union[M, None] = None`.
 */
export type Model = { readonly [field: string]: string | Model | readonly Model[] };

const PY_FROM = 1_667_260_800.25;
const PY_TO = 1_670_371_200.75;

export interface RelayedCase {
  path: string;
  /** The recorded answer (test/fixtures/bavest-sdk/<fixture>.json, the Python SDK's tests/data.py). */
  fixture: string;
  /** The SDK method and the body it posts; `dart` where the Dart client posts this endpoint too. */
  python: { method: string; body: Record<string, unknown> };
  dart?: { method: string; body: Record<string, unknown> };
  /** The Python model the answer parses into. */
  model: Model;
  /** Names one security: bulk may name the endpoint. */
  singleSecurity: boolean;
}

const sectorScore = { score: "float", d: "float" };
const scoreItem = { score: "float", date: "str" };
/**
 * `low: int or None` evaluates to `int` in Python; pydantic v1 casts a fractional number there, as the SDK's own
 * fixture sends for EPS.
 */
const estimateValue = { low: "int~", high: "int~", avg: "int~" };

export const RELAYED: readonly RelayedCase[] = [
  {
    path: "stock/news",
    fixture: "stock-news",
    python: { method: "client.stock.news(symbol) and client.news(symbol)", body: { symbol: "AAPL" } },
    dart: { method: "companyNews(SecurityIdentifier(isin: …))", body: { isin: "US0378331005" } },
    model: {
      news: [{ symbol: "str", publishedDate: "str", title: "str", image: "str", site: "str", text: "str", url: "str" }],
    },
    singleSecurity: true,
  },
  {
    path: "stock/esg",
    fixture: "stock-esg",
    python: { method: "client.stock.esg(symbol)", body: { symbol: "AAPL" } },
    dart: { method: "esg(SecurityIdentifier(symbol: …))", body: { symbol: "AAPL" } },
    model: {
      data: [{ formType: "str", acceptedDate: "str", date: "str" }],
      series: {
        "?": "nullable",
        totalESGScore: [scoreItem],
        socialScore: [scoreItem],
        governanceScore: [scoreItem],
        environmentScore: [scoreItem],
      },
      sector: {
        "?": "nullable",
        year: "int",
        sector: "str",
        environmentalScore: { "?": "nullable", ...sectorScore },
        socialScore: { "?": "nullable", ...sectorScore },
        governanceScore: { "?": "nullable", ...sectorScore },
        totalESGScore: { "?": "nullable", ...sectorScore },
      },
      "industrie-rating": {
        "?": "optional",
        symbol: "str",
        cik: "str",
        companyName: "str",
        industry: "str",
        year: "int",
        ESGRiskRating: "str",
        industryRank: { "?": "nullable", pos: "float", total: "float" },
      },
      environmentScore: "float",
      governanceScore: "float",
      socialScore: "float",
      symbol: "str",
      totalESGScore: "float",
    },
    singleSecurity: true,
  },
  {
    path: "stock/earning_call_transacript",
    fixture: "stock-earning-call-transcript",
    python: { method: "client.stock.transcript(symbol)", body: { symbol: "AAPL" } },
    model: { symbol: "str", transcript: [{ date: "str", transcript: "str", year: "int", quarter: "int" }] },
    singleSecurity: true,
  },
  {
    path: "stock/ipo/prospectus",
    fixture: "stock-ipo-prospectus",
    python: { method: "client.stock.prospectus(frm, to)", body: { from: PY_FROM, to: PY_TO } },
    model: {
      event: "str",
      prospectus: [
        {
          symbol: "str",
          cik: "str",
          filingDate: "str",
          discountsAndCommissionsTotal: "float",
          proceedsBeforeExpensesTotal: "float",
          acceptedDate: "str",
          discountsAndCommissionsPerShare: "float",
          url: "str",
          form: "str",
          pricePublicTotal: "float",
          pricePublicPerShare: "float",
          proceedsBeforeExpensesPerShare: "float",
          ipoDate: "str",
        },
      ],
    },
    singleSecurity: false,
  },
  {
    path: "stock/analyst_estimates",
    fixture: "stock-analyst-estimates",
    python: { method: "client.stock.estimates(symbol)", body: { symbol: "AAPL" } },
    model: {
      symbol: "str",
      estimates: [
        {
          date: "str",
          revenue: { "?": "nullable", ...estimateValue },
          ebitda: { "?": "nullable", ...estimateValue },
          ebit: { "?": "nullable", ...estimateValue },
          netIncome: { "?": "nullable", ...estimateValue },
          sgaExpense: { "?": "nullable", ...estimateValue },
          eps: { "?": "nullable", ...estimateValue },
          numberAnalystEstimatedRevenue: "int",
          numberAnalystsEstimatedEps: "int",
        },
      ],
    },
    singleSecurity: true,
  },
  {
    path: "calender/economics",
    fixture: "calender-economics",
    python: { method: "client.stock.economics(frm, to)", body: { event: "economics", from: PY_FROM, to: PY_TO } },
    model: {
      event: "str",
      economicCalendar: [
        {
          date: "str",
          country: "str",
          actual: "float",
          price: "float",
          prev: "float",
          percentage: "float",
          impact: "float",
          estimate: "float",
          event: "str",
        },
      ],
    },
    singleSecurity: false,
  },
  {
    path: "sentiment",
    fixture: "sentiment",
    python: { method: "client.sentiment.sentiment(symbol)", body: { symbol: "AAPL" } },
    dart: { method: "sentiment(SecurityIdentifier(symbol: …))", body: { symbol: "AAPL" } },
    model: {
      statusCode: "float",
      symbol: "str",
      score: "float",
      len: "float",
      positive: "float",
      neutral: "float",
      negative: "float",
    },
    singleSecurity: true,
  },
  {
    path: "sentiment/social",
    fixture: "sentiment-social",
    python: { method: "client.sentiment.social(symbol)", body: { symbol: "AAPL" } },
    model: {
      stockwits: [
        { date: "str", impressions: "float", sentiment: "float", comments: "float", likes: "float", posts: "float" },
      ],
      symbol: "str",
      twitter: [
        { date: "str", impressions: "float", sentiment: "float", comments: "float", likes: "float", posts: "float" },
      ],
    },
    singleSecurity: true,
  },
  {
    path: "news",
    fixture: "news",
    // urls.market_news names the path; no method of the SDK posts it, so the body is the empty one of a bare call.
    python: { method: "urls.market_news (no client method posts it)", body: {} },
    model: {
      news: [
        {
          category: "str",
          datetime: "float?",
          headline: "str",
          id: "float",
          image: "str",
          related: "str",
          source: "str",
          summary: "str",
          url: "str",
        },
      ],
    },
    singleSecurity: false,
  },
];

/**
 * Where `value` does not parse into `model` as pydantic reads it (field names and the types declared): an empty list
 * when it does. Keys the model does not declare are ignored, as pydantic ignores them.
 */
export function modelMismatches(value: unknown, model: Model | readonly Model[], at = "$"): string[] {
  if (Array.isArray(model)) {
    if (!Array.isArray(value)) return [`${at}: expected a list`];
    return value.flatMap((v, i) => modelMismatches(v, model[0] as Model, `${at}[${i}]`));
  }
  const m = model as Model;
  if (value === undefined && m["?"] === "optional") return [];
  if (value === null) return m["?"] ? [] : [`${at}: null where the model takes no None`];
  if (typeof value !== "object" || Array.isArray(value)) return [`${at}: expected an object`];
  const obj = value as Record<string, unknown>;
  const out: string[] = [];
  for (const [field, type] of Object.entries(m)) {
    if (field === "?") continue;
    const v = obj[field];
    const where = `${at}.${field}`;
    if (typeof type !== "string") {
      // Lists default to [] in the SDK's models; objects are Union[X, None] where marked.
      if (v === undefined && Array.isArray(type)) continue;
      out.push(...modelMismatches(v, type, where));
      continue;
    }
    if (type.endsWith("?") && v == null) continue;
    if (v === undefined) {
      out.push(`${where}: missing`);
      continue;
    }
    const base = type.replace(/\?$/, "");
    const ok =
      base === "str"
        ? typeof v === "string"
        : base === "float" || base === "int~"
          ? typeof v === "number"
          : base === "int"
            ? Number.isInteger(v)
            : false;
    if (!ok) out.push(`${where}: ${JSON.stringify(v)} is not ${type}`);
  }
  return out;
}
