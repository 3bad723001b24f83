import { z } from "zod";
import type { RelayedAnswer } from "../../../domain/relay/relay.answers";
import { sdkTimeField, securityRefBody, securityVariables } from "../rest.body";
import {
  AnalystEstimatesDocument,
  EarningCallTranscriptDocument,
  EconomicCalendarDocument,
  IpoProspectusDocument,
  MarketNewsDocument,
  SentimentDocument,
  SocialSentimentDocument,
  StockEsgDocument,
  StockNewsDocument,
} from "../rest.operations.generated";
import { example, type NamedExample } from "../rest.examples";
import { route, VERSIONS, type RouteEntry } from "../rest.route";

/*
 * The endpoints only gateway mode serves (src/domain/relay/relay.answers.ts; docs/contract.md section 9), spelled as
 * the Bavest SDKs post them (`earning_call_transacript`, `calender` included). Each 200 schema is the Bavest Python
 * SDK's model (bavest/finance/models/v0/**) as it declares it: `float` a number, `int` an integer, `str` a string,
 * `Union[X, None]` nullable, a field with a default optional. Objects are loose: the upstream's answer passes through
 * as it came, and the SDK's models ignore keys they do not declare. The answer examples are the SDK's own test
 * fixtures (its tests/data.py), shortened to one item per list.
 */

const str = z.string();
const num = z.number();
const obj = z.looseObject;

/** `int or None` in the SDK evaluates to `int`; its own fixture sends fractional EPS there, which pydantic v1 casts. */
const laxInt = z.number().describe("Declared `int` by the SDK's model; its own fixture sends fractional EPS here");

const stockNewsResponse = obj({
  news: z
    .array(obj({ symbol: str, publishedDate: str, title: str, image: str, site: str, text: str, url: str }))
    .optional(),
});

const sectorScore = obj({ score: num, d: num }).nullable();
const scoreSeries = z.array(obj({ score: num, date: str })).optional();
const stockEsgResponse = obj({
  data: z.array(obj({ formType: str, acceptedDate: str, date: str })).optional(),
  series: obj({
    totalESGScore: scoreSeries,
    socialScore: scoreSeries,
    governanceScore: scoreSeries,
    environmentScore: scoreSeries,
  }).nullable(),
  sector: obj({
    year: z.int(),
    sector: str,
    environmentalScore: sectorScore,
    socialScore: sectorScore,
    governanceScore: sectorScore,
    totalESGScore: sectorScore,
  }).nullable(),
  "industrie-rating": obj({
    symbol: str,
    cik: str,
    companyName: str,
    industry: str,
    year: z.int(),
    ESGRiskRating: str,
    industryRank: obj({ pos: num, total: num }).nullable(),
  })
    .nullable()
    .optional(),
  environmentScore: num,
  governanceScore: num,
  socialScore: num,
  symbol: str,
  totalESGScore: num,
});

const transcriptResponse = obj({
  symbol: str,
  transcript: z.array(obj({ date: str, transcript: str, year: z.int(), quarter: z.int() })).optional(),
});

const prospectusResponse = obj({
  event: str,
  prospectus: z
    .array(
      obj({
        symbol: str,
        cik: str,
        filingDate: str,
        discountsAndCommissionsTotal: num,
        proceedsBeforeExpensesTotal: num,
        acceptedDate: str,
        discountsAndCommissionsPerShare: num,
        url: str,
        form: str,
        pricePublicTotal: num,
        pricePublicPerShare: num,
        proceedsBeforeExpensesPerShare: num,
        ipoDate: str,
      }),
    )
    .optional(),
});

const estimateValue = obj({ low: laxInt, high: laxInt, avg: laxInt }).nullable();
const estimatesResponse = obj({
  symbol: str,
  estimates: z
    .array(
      obj({
        date: str,
        revenue: estimateValue,
        ebitda: estimateValue,
        ebit: estimateValue,
        netIncome: estimateValue,
        sgaExpense: estimateValue,
        eps: estimateValue,
        numberAnalystEstimatedRevenue: z.int(),
        numberAnalystsEstimatedEps: z.int(),
      }),
    )
    .optional(),
});

const economicsResponse = obj({
  event: str,
  economicCalendar: z
    .array(
      obj({
        date: str,
        country: str,
        actual: num,
        price: num,
        prev: num,
        percentage: num,
        impact: num,
        estimate: num,
        event: str,
      }),
    )
    .optional(),
});

const sentimentResponse = obj({
  statusCode: num,
  symbol: str,
  score: num,
  len: num,
  positive: num,
  neutral: num,
  negative: num,
});

const socialItems = z
  .array(obj({ date: str, impressions: num, sentiment: num, comments: num, likes: num, posts: num }))
  .optional();
const socialSentimentResponse = obj({ stockwits: socialItems, symbol: str, twitter: socialItems });

const marketNewsResponse = obj({
  news: z
    .array(
      obj({
        category: str,
        datetime: num.optional(),
        headline: str,
        id: num,
        image: str,
        related: str,
        source: str,
        summary: str,
        url: str,
      }),
    )
    .optional(),
});

/** Every relayed endpoint of one security takes one identifier, as the Dart client sends it (`SecurityIdentifier`). */
const securityBody = securityRefBody.transform(securityVariables);

/** `from` and `to` in any SDK time form, passed upstream as whole Unix seconds (as Bavest's Dart client sends them). */
const rangeBody = z
  .object({ from: sdkTimeField.optional(), to: sdkTimeField.optional() })
  .transform((b) => ({ from: b.from ?? null, to: b.to ?? null }));

const economicsBody = z
  .object({
    event: z.string().optional().describe('The calendar asked for; the Python SDK sends "economics"'),
    from: sdkTimeField.optional(),
    to: sdkTimeField.optional(),
  })
  .transform((b) => ({ event: b.event ?? null, from: b.from ?? null, to: b.to ?? null }));

/** Python's `datetime.timestamp()` of two days in 2022, floats as the SDK sends them. */
const PYTHON_RANGE = { from: 1_667_260_800.5, to: 1_670_371_200.5 };

/** The 200 example: the SDK's own fixture, lists cut to their first item (a transcript to its first sentences). */
const fixtureExample = (value: Record<string, unknown>): NamedExample => ({
  summary: "The Bavest Python SDK's own test fixture (its tests/data.py), shortened",
  value,
});

const NOT_SERVED = "404 `NOT_AVAILABLE` over a store";

export const RELAY_ROUTES: readonly RouteEntry[] = [
  route({
    path: "stock/news",
    summary: "News about a company (gateway mode only)",
    versions: VERSIONS,
    scope: "stock",
    body: securityBody,
    operation: StockNewsDocument,
    shape: (d) => d.stockNews as RelayedAnswer as z.output<typeof stockNewsResponse>,
    response: stockNewsResponse,
    gatewayOnly: true,
    examples: (s) => ({ stock: example("A stock's news, as both SDKs post it", { symbol: s.stock }) }),
    answerExample: fixtureExample({
      news: [
        {
          symbol: "AAPL",
          publishedDate: "2022-11-30 09:26:44",
          title: "Spotify CEO renews attack on Apple after Musk's salvo",
          image: "https://cdn.snapi.dev/images/v1/7/c/3enteohf3virrnictkzycynk54-1656541.jpg",
          site: "Reuters",
          text:
            "Spotify CEO Daniel Ek renewed his attack on Apple on Wednesday through a series of tweets alleging the " +
            'iPhone maker "gives itself every advantage while at the same time stifling innovation and hurting ' +
            'consumers".',
          url: "https://www.reuters.com/technology/spotify-ceo-renews-attack-apple-after-musks-salvo-2022-11-30/",
        },
      ],
    }),
    emptyAnswer: NOT_SERVED,
    singleSecurity: true,
  }),
  route({
    path: "stock/esg",
    summary: "ESG scores of a company (gateway mode only)",
    versions: VERSIONS,
    scope: "stock",
    body: securityBody,
    operation: StockEsgDocument,
    shape: (d) => d.stockEsg as RelayedAnswer as z.output<typeof stockEsgResponse>,
    response: stockEsgResponse,
    gatewayOnly: true,
    examples: (s) => ({ stock: example("A stock's ESG scores, as both SDKs post it", { symbol: s.stock }) }),
    answerExample: fixtureExample({
      data: [{ formType: "10-K", acceptedDate: "2022-10-27 18:01:14", date: "2022-09-24" }],
      series: {
        totalESGScore: [{ score: 59.34, date: "2022-09-24" }],
        socialScore: [{ score: 52.57, date: "2022-09-24" }],
        governanceScore: [{ score: 62.67, date: "2022-09-24" }],
        environmentScore: [{ score: 62.77, date: "2022-09-24" }],
      },
      sector: {
        year: 2022,
        sector: "ELECTRONIC COMPUTERS",
        environmentalScore: { score: 62.78, d: -0.00999999999999801 },
        socialScore: { score: 65.94, d: -13.369999999999997 },
        governanceScore: { score: 68.95, d: -6.280000000000001 },
        totalESGScore: { score: 65.89, d: -6.549999999999997 },
      },
      "industrie-rating": {
        symbol: "AAPL",
        cik: "0000320193",
        companyName: "Apple Inc.",
        industry: "ELECTRONIC COMPUTERS",
        year: 2022,
        ESGRiskRating: "B",
        industryRank: { pos: 6, total: 7 },
      },
      environmentScore: 62.77,
      governanceScore: 62.67,
      socialScore: 52.57,
      symbol: "AAPL",
      totalESGScore: 59.34,
    }),
    emptyAnswer: NOT_SERVED,
    singleSecurity: true,
  }),
  route({
    path: "stock/earning_call_transacript",
    summary: "Earnings call transcripts of a company, spelled as the SDK posts it (gateway mode only)",
    versions: VERSIONS,
    scope: "stock",
    body: securityBody,
    operation: EarningCallTranscriptDocument,
    shape: (d) => d.earningCallTranscript as RelayedAnswer as z.output<typeof transcriptResponse>,
    response: transcriptResponse,
    gatewayOnly: true,
    examples: (s) => ({ stock: example("A stock's transcripts, as the Python SDK posts it", { symbol: s.stock }) }),
    answerExample: fixtureExample({
      symbol: "AAPL",
      transcript: [
        {
          date: "2022-10-27 19:46:03",
          transcript:
            "Operator: Good day, and welcome to the Apple Q4 Fiscal Year 2022 Earnings Conference Call. For your " +
            "information, today's call is being recorded. [the fixture's transcript goes on]",
          year: 2022,
          quarter: 4,
        },
      ],
    }),
    emptyAnswer: NOT_SERVED,
    singleSecurity: true,
  }),
  route({
    path: "stock/ipo/prospectus",
    summary: "IPO prospectuses filed between from and to (gateway mode only)",
    versions: VERSIONS,
    scope: "stock",
    body: rangeBody,
    operation: IpoProspectusDocument,
    shape: (d) => d.ipoProspectus as RelayedAnswer as z.output<typeof prospectusResponse>,
    response: prospectusResponse,
    gatewayOnly: true,
    examples: () => ({ python: example("As the Python SDK posts it: float seconds", PYTHON_RANGE) }),
    answerExample: fixtureExample({
      event: "ipo-calendar-prospectus",
      prospectus: [
        {
          symbol: "ATMCU",
          cik: "0001889106",
          filingDate: "2022-12-07",
          discountsAndCommissionsTotal: 3600000,
          proceedsBeforeExpensesTotal: 56400000,
          acceptedDate: "2022-12-07 10:18:44",
          discountsAndCommissionsPerShare: 0.6,
          url: "https://www.sec.gov/Archives/edgar/data/1889106/000149315222034692/forms-1.htm",
          form: "S-1",
          pricePublicTotal: 60000000,
          pricePublicPerShare: 10,
          proceedsBeforeExpensesPerShare: 9.4,
          ipoDate: "2022",
        },
      ],
    }),
    emptyAnswer: NOT_SERVED,
    singleSecurity: false,
  }),
  route({
    path: "stock/analyst_estimates",
    summary: "Analysts' estimates of a company's figures (gateway mode only)",
    versions: VERSIONS,
    scope: "stock",
    body: securityBody,
    operation: AnalystEstimatesDocument,
    shape: (d) => d.analystEstimates as RelayedAnswer as z.output<typeof estimatesResponse>,
    response: estimatesResponse,
    gatewayOnly: true,
    examples: (s) => ({ stock: example("A stock's estimates, as the Python SDK posts it", { symbol: s.stock }) }),
    answerExample: fixtureExample({
      symbol: "AAPL",
      estimates: [
        {
          date: "2024-12-31",
          revenue: { low: 281040137263, high: 301321384282, avg: 289732100271 },
          ebitda: { low: 52650653701, high: 52650653701, avg: 52650653701 },
          ebit: { low: 19864635314, high: 19864635314, avg: 19864635314 },
          netIncome: { low: 16265341428, high: 16265341428, avg: 16265341428 },
          sgaExpense: { low: 34274694767, high: 34274694767, avg: 34274694767 },
          eps: { low: 88.94681261999408, high: 95.36565476782872, avg: 91.69774496906606 },
          numberAnalystEstimatedRevenue: 18,
          numberAnalystsEstimatedEps: 19,
        },
      ],
    }),
    emptyAnswer: NOT_SERVED,
    singleSecurity: true,
  }),
  route({
    path: "calender/economics",
    summary: "Economic events between from and to, spelled as the SDK posts it (gateway mode only)",
    versions: VERSIONS,
    scope: "stock",
    body: economicsBody,
    operation: EconomicCalendarDocument,
    shape: (d) => d.economicCalendar as RelayedAnswer as z.output<typeof economicsResponse>,
    response: economicsResponse,
    gatewayOnly: true,
    examples: () => ({
      python: example("As the Python SDK posts it: the event and float seconds", {
        event: "economics",
        ...PYTHON_RANGE,
      }),
    }),
    answerExample: fixtureExample({
      event: "economics",
      economicCalendar: [
        {
          date: "2022-01-31 23:30:00",
          country: "JP",
          actual: 2.7,
          price: -0.1,
          prev: 2.8,
          percentage: 3.571,
          impact: 2,
          estimate: 2.8,
          event: "Unemployment Rate (Dec)",
        },
      ],
    }),
    emptyAnswer: NOT_SERVED,
    singleSecurity: false,
  }),
  route({
    path: "sentiment",
    summary: "News sentiment of a company (gateway mode only)",
    versions: VERSIONS,
    scope: "stock",
    body: securityBody,
    operation: SentimentDocument,
    shape: (d) => d.sentiment as RelayedAnswer as z.output<typeof sentimentResponse>,
    response: sentimentResponse,
    gatewayOnly: true,
    examples: (s) => ({ stock: example("A stock's sentiment, as both SDKs post it", { symbol: s.stock }) }),
    answerExample: fixtureExample({
      statusCode: 0,
      symbol: "string",
      score: 0,
      len: 0,
      positive: 0.62,
      neutral: 0,
      negative: 0,
    }),
    emptyAnswer: NOT_SERVED,
    singleSecurity: true,
  }),
  route({
    path: "sentiment/social",
    summary: "Social media sentiment of a company (gateway mode only)",
    versions: VERSIONS,
    scope: "stock",
    body: securityBody,
    operation: SocialSentimentDocument,
    shape: (d) => d.socialSentiment as RelayedAnswer as z.output<typeof socialSentimentResponse>,
    response: socialSentimentResponse,
    gatewayOnly: true,
    examples: (s) => ({
      stock: example("A stock's social sentiment, as the Python SDK posts it", { symbol: s.stock }),
    }),
    answerExample: fixtureExample({
      stockwits: [{ date: "string", impressions: 1000, sentiment: 0, comments: 0, likes: 0, posts: 0 }],
      symbol: "string",
      twitter: [{ date: "string", impressions: 1200, sentiment: 0, comments: 0, likes: 0, posts: 0 }],
    }),
    emptyAnswer: NOT_SERVED,
    singleSecurity: true,
  }),
  route({
    path: "news",
    summary: "Market news (gateway mode only)",
    versions: VERSIONS,
    scope: "stock",
    body: z.object({}).transform(() => ({})),
    operation: MarketNewsDocument,
    shape: (d) => d.marketNews as RelayedAnswer as z.output<typeof marketNewsResponse>,
    response: marketNewsResponse,
    gatewayOnly: true,
    examples: () => ({ all: example("No body: the latest market news", {}) }),
    answerExample: fixtureExample({
      news: [
        {
          category: "top news",
          datetime: 1667660401,
          headline: "Kellogg's just released a boozy, Eggo Waffles-inspired eggnog liqueur—and I tried it",
          id: 7192614,
          image:
            "https://image.cnbcfm.com/api/v1/image/107146477-1667585768594-IMG_7545.jpg?v=1667660401&w=1920&h=1080",
          related: "",
          source: "CNBC",
          summary:
            "Eggo decided to tackle the seasonal adult beverage to 'give grownups a unique way to L'Eggo of the " +
            "holiday stress this season.'",
          url: "https://www.cnbc.com/2022/11/05/eggo-nog-eggnog-liqueur-review.html",
        },
      ],
    }),
    emptyAnswer: NOT_SERVED,
    singleSecurity: false,
  }),
];
