import { readFileSync } from "node:fs";
import path from "node:path";
import type { SampleContext } from "./sample.context";
import type { Crypto } from "./sample.model";
import { interpolate, priceDecimals, roundTo } from "../../sources/sample/sample.numbers";

/**
 * Crypto assets with their real symbols and names from the `cryptocurrencies`
 * package. That package is ESM with top-level await, so its JSON file is read
 * directly instead of being imported.
 */

/** Well-known assets, largest first; they take the top ranks when present. */
const MAJORS = [
  "BTC",
  "ETH",
  "USDT",
  "BNB",
  "SOL",
  "XRP",
  "USDC",
  "ADA",
  "DOGE",
  "TRX",
  "TON",
  "DOT",
  "LINK",
  "AVAX",
  "SHIB",
  "MATIC",
  "LTC",
  "BCH",
  "XLM",
  "ATOM",
  "UNI",
  "XMR",
  "ETC",
  "DAI",
  "NEAR",
  "APT",
  "FIL",
  "ICP",
  "HBAR",
  "ARB",
  "OP",
  "VET",
  "ALGO",
  "AAVE",
  "MKR",
];
/** Rough USD prices so the majors look familiar; others get random prices. */
const APPROX_PRICES: Readonly<Record<string, number>> = {
  BTC: 65000,
  ETH: 3200,
  USDT: 1,
  BNB: 550,
  SOL: 150,
  XRP: 0.55,
  USDC: 1,
  ADA: 0.45,
  DOGE: 0.13,
  TRX: 0.12,
  TON: 6,
  DOT: 6.5,
  LINK: 14,
  AVAX: 30,
  SHIB: 0.00002,
  MATIC: 0.6,
  LTC: 80,
  BCH: 400,
  XLM: 0.11,
  ATOM: 8,
  UNI: 8,
  XMR: 150,
  ETC: 25,
  DAI: 1,
  NEAR: 5,
  APT: 8,
  FIL: 5,
  ICP: 10,
  HBAR: 0.08,
  ARB: 0.9,
  OP: 2,
  VET: 0.03,
  ALGO: 0.18,
  AAVE: 100,
  MKR: 2500,
};
/**
 * The assets' own current names where the package's differ: it gives a
 * symbol's first claimant (TON is Tokamak Network there, not Toncoin) or an
 * old or informal name.
 */
const REAL_NAMES: Readonly<Record<string, string>> = {
  BNB: "BNB",
  TON: "Toncoin",
  UNI: "Uniswap",
  NEAR: "NEAR Protocol",
  FIL: "Filecoin",
  HBAR: "Hedera",
  MATIC: "Polygon",
  MKR: "Maker",
};

/** Dollar-pegged tokens: their price path stays at 1. */
const STABLECOINS = new Set(["USDT", "USDC", "DAI"]);

// Leveraged/short tokens and crude names make poor sample data.
const UNWANTED_NAME = /\b(3x|2x|bull|bear|short|long|leveraged|shit|fuck|porn|sex|nude|ass|cum|nigg|hitler)\b/i;
const CLEAN_SYMBOL = /^[A-Z0-9]{2,10}$/;

/** log10(rank in a full-size universe) -> log10(market cap in USD). */
const CAP_KNOTS: readonly (readonly [number, number])[] = [
  [0, 12.1],
  [0.3, 11.6],
  [1, 10.2],
  [2, 8.8],
  [2.7, 7.6],
  [3.18, 6.0],
];
const FULL_CRYPTO_COUNT = 1_500;

export function loadCryptoCatalog(): Map<string, string> {
  const file = path.join(path.dirname(require.resolve("cryptocurrencies")), "cryptocurrencies.json");
  const raw = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const out = new Map<string, string>();
  for (const symbol of Object.keys(raw).sort()) {
    const name = raw[symbol];
    if (typeof name !== "string") continue;
    const trimmed = name.trim();
    if (!CLEAN_SYMBOL.test(symbol) || trimmed.length < 2 || UNWANTED_NAME.test(trimmed) || UNWANTED_NAME.test(symbol))
      continue;
    out.set(symbol, trimmed);
  }
  for (const [symbol, name] of Object.entries(REAL_NAMES)) out.set(symbol, name);
  return out;
}

export function generateCrypto(ctx: SampleContext, firstId: number): Crypto[] {
  const r = ctx.rng("crypto");
  const catalog = loadCryptoCatalog();
  const n = ctx.counts.crypto;

  const seenNames = new Set<string>();
  const chosen: string[] = [];
  for (const sym of MAJORS) {
    const name = catalog.get(sym);
    if (!name || seenNames.has(name.toLowerCase())) continue;
    seenNames.add(name.toLowerCase());
    chosen.push(sym);
  }
  chosen.length = Math.min(chosen.length, Math.max(10, Math.floor(n / 3)));
  const rest: string[] = [];
  for (const [sym, name] of catalog) {
    if (chosen.includes(sym) || seenNames.has(name.toLowerCase())) continue;
    seenNames.add(name.toLowerCase());
    rest.push(sym);
  }
  chosen.push(...r.sample(rest, n - chosen.length));

  const out: Crypto[] = [];
  chosen.forEach((symbol, i) => {
    const cr = r.fork(symbol);
    const fullRank = (i + 1) * (FULL_CRYPTO_COUNT / n);
    const capUsd = 10 ** interpolate(CAP_KNOTS, Math.log10(fullRank)) * Math.exp(0.05 * cr.normal());
    const stable = STABLECOINS.has(symbol);
    const approx = APPROX_PRICES[symbol];
    const raw = approx ?? Math.min(5000, Math.max(1e-6, cr.logNormal(Math.log(0.5), 2.2)));
    const price = roundTo(raw, priceDecimals(raw, 2));
    const supply = Math.round(capUsd / price);
    const name = catalog.get(symbol) as string;
    const id = firstId + i;
    out.push({
      id,
      type: "crypto",
      name,
      isin: null,
      cusip: null,
      country: null,
      sector: null,
      industry: null,
      currency: "USD",
      marketCap: supply * price,
      sharesOutstanding: supply,
      isAdr: false,
      description: `${name} (${symbol}) is a crypto asset, quoted around the clock against the US dollar and the euro.`,
      website: null,
      ipoDate: null,
      nextEarningsDate: null,
      rank: null,
      listings: [
        {
          id: 0,
          securityId: id,
          symbol: `${symbol}-USD`,
          exchange: "CRYPTO",
          currency: "USD",
          isPrimary: true,
          quoteCurrency: "USD",
        },
        {
          id: 0,
          securityId: id,
          symbol: `${symbol}-EUR`,
          exchange: "CRYPTO",
          currency: "EUR",
          isPrimary: false,
          quoteCurrency: "EUR",
        },
      ],
      price,
      valueUsd: supply * price,
      volatility: stable ? 0.01 : symbol === "BTC" ? 0.25 : cr.range(0.45, 0.9),
      beta: stable ? 0 : symbol === "BTC" ? 1 : cr.range(0.6, 1.2),
      drift: stable ? 0 : cr.range(-0.15, 0.15),
      volume: Math.max(10, Math.round(supply * cr.range(0.005, 0.05))),
      symbol,
      stable,
    });
    ctx.symbols.claim(`${symbol}-USD`);
    ctx.symbols.claim(`${symbol}-EUR`);
  });
  // Largest first, so "the N largest" is a prefix.
  return out.sort((a, b) => b.valueUsd - a.valueUsd || a.id - b.id);
}
