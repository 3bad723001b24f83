import type { Random } from "../../sources/sample/sample.random";
import type { IndustryDef } from "./sample.sectors";

/**
 * Fictional company names and ticker symbols.
 *
 * Names are built from syllables so that the distinctive word of a name is
 * (nearly) unique: a name search finds a handful of companies, while generic
 * words ("Therapeutics", "Holdings") still find many, as on a real market.
 */

type NameStyle = "western" | "german" | "french" | "dutch" | "japanese" | "chinese";

const WESTERN_ONSETS = [
  "Al",
  "Am",
  "An",
  "Ar",
  "As",
  "Av",
  "Bal",
  "Bel",
  "Ber",
  "Bor",
  "Bra",
  "Bri",
  "Cal",
  "Cam",
  "Car",
  "Cel",
  "Cor",
  "Cra",
  "Cy",
  "Dal",
  "Dar",
  "Del",
  "Dor",
  "Dra",
  "Dyn",
  "El",
  "Em",
  "En",
  "Ev",
  "Fal",
  "Fen",
  "Fer",
  "Fil",
  "Flo",
  "Gal",
  "Gar",
  "Gen",
  "Gla",
  "Gor",
  "Hal",
  "Har",
  "Hel",
  "Hor",
  "Hy",
  "Il",
  "In",
  "Ir",
  "Jar",
  "Jen",
  "Kal",
  "Kar",
  "Kel",
  "Ken",
  "Kor",
  "Lan",
  "Lar",
  "Lex",
  "Lin",
  "Lor",
  "Lu",
  "Mal",
  "Mar",
  "Med",
  "Mer",
  "Mil",
  "Mor",
  "Nav",
  "Nel",
  "Nor",
  "Nov",
  "Nyx",
  "Ol",
  "Om",
  "Or",
  "Pal",
  "Par",
  "Pen",
  "Per",
  "Pol",
  "Pra",
  "Qua",
  "Quin",
  "Ral",
  "Ren",
  "Rho",
  "Ros",
  "Sal",
  "Sel",
  "Sol",
  "Sor",
  "Sta",
  "Syl",
  "Tal",
  "Tar",
  "Tel",
  "Ter",
  "Tor",
  "Tri",
  "Ul",
  "Um",
  "Val",
  "Ven",
  "Ver",
  "Vol",
  "Wal",
  "Wes",
  "Xan",
  "Xen",
  "Yar",
  "Zal",
  "Zen",
  "Zor",
];
const WESTERN_LINKS = [
  "",
  "",
  "",
  "",
  "a",
  "e",
  "i",
  "o",
  "an",
  "en",
  "in",
  "on",
  "ar",
  "er",
  "or",
  "al",
  "el",
  "il",
  "is",
  "os",
  "ex",
  "ant",
];
const WESTERN_ENDINGS = [
  "tex",
  "tis",
  "tron",
  "tra",
  "via",
  "vis",
  "dyn",
  "dex",
  "gen",
  "lia",
  "lix",
  "lon",
  "mar",
  "max",
  "nex",
  "nix",
  "ra",
  "ris",
  "ron",
  "rus",
  "sa",
  "sis",
  "son",
  "ta",
  "tek",
  "tor",
  "vo",
  "xa",
  "xis",
  "zen",
  "zon",
  "ford",
  "field",
  "gate",
  "haven",
  "ridge",
  "stone",
  "wood",
  "well",
  "worth",
  "brook",
  "bridge",
  "mont",
  "dale",
  "wick",
  "ton",
  "by",
  "ley",
];
const GERMAN_ONSETS = [
  "Stein",
  "Berg",
  "Wald",
  "Hof",
  "Roth",
  "Schwarz",
  "Wei",
  "Lin",
  "Adler",
  "Falk",
  "Hart",
  "Kron",
  "Lau",
  "Mar",
  "Nord",
  "Ober",
  "Rein",
  "Sonn",
  "Tann",
  "Vogt",
  "Wer",
  "Ehr",
  "Gold",
  "Hel",
  "Brau",
  "Dorn",
  "Eich",
  "Feld",
  "Grün",
  "Horn",
];
const GERMAN_ENDINGS = [
  "mann",
  "berg",
  "stadt",
  "hof",
  "feld",
  "haus",
  "werk",
  "ner",
  "ler",
  "bach",
  "au",
  "ingen",
  "dorf",
  "heim",
  "tal",
  "brück",
];
const GERMAN_WORDS = ["Werke", "Technik", "Industrie", "Gruppe", "Holding", "Systeme", "Beteiligungen"];
const FRENCH_ONSETS = [
  "Beau",
  "Mont",
  "Val",
  "Ville",
  "Char",
  "Lor",
  "Mar",
  "Rou",
  "Sav",
  "Bel",
  "Cler",
  "Dau",
  "Fon",
  "Gar",
  "Lan",
  "Mir",
  "Per",
  "Sol",
  "Ver",
  "Aub",
];
const FRENCH_ENDINGS = [
  "ville",
  "mont",
  "lac",
  "rive",
  "ange",
  "elle",
  "ette",
  "ard",
  "ière",
  "eau",
  "ois",
  "ence",
  "ay",
  "in",
  "on",
  "ac",
];
const DUTCH_ONSETS = [
  "Van",
  "Ter",
  "Den",
  "Zee",
  "Hol",
  "Rijn",
  "Wes",
  "Oos",
  "Noord",
  "Brug",
  "Dek",
  "Gro",
  "Haar",
  "Kamp",
  "Lin",
  "Vliet",
  "Wou",
  "Ijs",
];
const DUTCH_ENDINGS = [
  "veld",
  "dijk",
  "berg",
  "hoven",
  "dam",
  "land",
  "stra",
  "ma",
  "huis",
  "werf",
  "burg",
  "kamp",
  "wijk",
  "sma",
];
const JAPANESE_SYLLABLES = [
  "ka",
  "ki",
  "ku",
  "ke",
  "ko",
  "sa",
  "shi",
  "su",
  "se",
  "so",
  "ta",
  "chi",
  "tsu",
  "te",
  "to",
  "na",
  "ni",
  "no",
  "ha",
  "hi",
  "fu",
  "ho",
  "ma",
  "mi",
  "mu",
  "mo",
  "ya",
  "yu",
  "yo",
  "ra",
  "ri",
  "ro",
  "wa",
  "da",
  "de",
  "do",
  "ga",
  "gi",
  "go",
  "ba",
  "be",
  "bo",
  "shin",
  "ken",
  "sei",
  "tai",
  "dai",
  "kan",
  "hon",
  "nichi",
  "ei",
];
const JAPANESE_WORDS: Readonly<Record<string, readonly string[]>> = {
  "Information Technology": ["Denshi", "Tsushin", "Systems", "Seisakusho"],
  "Health Care": ["Seiyaku", "Iryo"],
  Financials: ["Ginko", "Shoken", "Holdings", "Sonpo"],
  Industrials: ["Kogyo", "Kensetsu", "Unyu", "Kikai", "Jukogyo"],
  "Consumer Discretionary": ["Jidosha", "Shoji", "Kosan"],
  "Consumer Staples": ["Shokuhin", "Seika", "Shuzo"],
  Energy: ["Sekiyu", "Enerugi"],
  Materials: ["Kagaku", "Seitetsu", "Kogyo"],
  "Communication Services": ["Tsushin", "Hoso"],
  Utilities: ["Denryoku", "Gasu"],
  "Real Estate": ["Fudosan", "Jisho"],
};
const CHINESE_SYLLABLES = [
  "Hua",
  "Xin",
  "Zhong",
  "Tai",
  "Long",
  "Feng",
  "Jin",
  "Kang",
  "Sheng",
  "Hai",
  "Yuan",
  "Rui",
  "Tian",
  "Bao",
  "Heng",
  "Da",
  "Fu",
  "Guang",
  "Ming",
  "An",
  "Chang",
  "Hong",
  "Jia",
  "Wei",
  "Yong",
  "Xing",
  "Tong",
  "Hui",
  "Sen",
  "Li",
  "Lian",
  "Cheng",
];
const CHINESE_PLACES = [
  "Shenzhen",
  "Shanghai",
  "Beijing",
  "Guangzhou",
  "Hangzhou",
  "Nanjing",
  "Wuhan",
  "Chengdu",
  "Tianjin",
  "Xiamen",
  "Suzhou",
  "Qingdao",
  "Dalian",
  "Ningbo",
  "Chongqing",
  "Jiangsu",
  "Zhejiang",
  "Fujian",
  "Shandong",
  "Anhui",
  "Hunan",
  "Sichuan",
];
const EUROPEAN_LINKS = ["", "", "en", "el", "er", "s", "a"];
// How many companies may share a distinctive word: small pools (Chinese
// syllable pairs) must be shared, but never by more than a handful.
const MAX_CORE_USE: Readonly<Record<NameStyle, number>> = {
  western: 1,
  german: 3,
  french: 3,
  dutch: 3,
  japanese: 2,
  chinese: 8,
};
const GENERIC_WORDS = ["Holdings", "Group", "Industries", "International", "Global", "Enterprises", "Partners"];

interface CountryNaming {
  style: NameStyle;
  suffixes: readonly string[];
  suffixWeights: readonly number[];
}

const NAMING: Readonly<Record<string, CountryNaming>> = {
  US: { style: "western", suffixes: ["Inc.", "Corp.", "Co.", "Holdings Inc."], suffixWeights: [60, 28, 5, 7] },
  CA: { style: "western", suffixes: ["Inc.", "Corp.", "Ltd."], suffixWeights: [50, 30, 20] },
  GB: { style: "western", suffixes: ["plc"], suffixWeights: [1] },
  IE: { style: "western", suffixes: ["plc"], suffixWeights: [1] },
  AU: { style: "western", suffixes: ["Ltd", "Limited"], suffixWeights: [80, 20] },
  DE: { style: "german", suffixes: ["AG", "SE", "KGaA"], suffixWeights: [70, 26, 4] },
  FR: { style: "french", suffixes: ["S.A.", "SE"], suffixWeights: [70, 30] },
  NL: { style: "dutch", suffixes: ["N.V."], suffixWeights: [1] },
  CH: { style: "german", suffixes: ["AG", "SA", "Holding AG"], suffixWeights: [60, 20, 20] },
  JP: { style: "japanese", suffixes: ["K.K."], suffixWeights: [1] },
  HK: { style: "chinese", suffixes: ["Ltd", "Holdings Ltd"], suffixWeights: [60, 40] },
  CN: { style: "chinese", suffixes: ["Co., Ltd.", "Ltd"], suffixWeights: [70, 30] },
  BR: { style: "western", suffixes: ["S.A."], suffixWeights: [1] },
  MX: { style: "western", suffixes: ["S.A.B. de C.V."], suffixWeights: [1] },
  AR: { style: "western", suffixes: ["S.A."], suffixWeights: [1] },
  ES: { style: "western", suffixes: ["S.A."], suffixWeights: [1] },
  IT: { style: "western", suffixes: ["S.p.A."], suffixWeights: [1] },
  KR: { style: "western", suffixes: ["Co., Ltd.", "Corp."], suffixWeights: [60, 40] },
  TW: { style: "western", suffixes: ["Corp.", "Co., Ltd."], suffixWeights: [60, 40] },
  SE: { style: "western", suffixes: ["AB"], suffixWeights: [1] },
  DK: { style: "western", suffixes: ["A/S"], suffixWeights: [1] },
  NO: { style: "western", suffixes: ["ASA"], suffixWeights: [1] },
  FI: { style: "western", suffixes: ["Oyj"], suffixWeights: [1] },
};
const DEFAULT_NAMING: CountryNaming = { style: "western", suffixes: ["Ltd"], suffixWeights: [1] };

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export interface CompanyName {
  name: string;
  /** The distinctive word, used for tickers and web addresses. */
  core: string;
  /** Name without the legal suffix, as used in bond and description text. */
  shortName: string;
}

/** Hands out unique company names; one instance per generated universe. */
export class CompanyNamer {
  private readonly coreUse = new Map<string, number>();
  private readonly names = new Set<string>();

  constructor(private readonly rng: Random) {}

  company(country: string, sector: string, industry: IndustryDef): CompanyName {
    const naming = NAMING[country] ?? DEFAULT_NAMING;
    // Many continental European companies carry English-sounding names, and
    // the national syllable pools alone are too small for thousands of names.
    const style =
      naming.style !== "western" && naming.style !== "japanese" && naming.style !== "chinese" && this.rng.chance(0.55)
        ? "western"
        : naming.style;
    const maxUse = MAX_CORE_USE[style];
    for (let attempt = 0; ; attempt++) {
      const core = this.core(style);
      if ((this.coreUse.get(core) ?? 0) >= maxUse && attempt < 200) continue;
      const shortName = this.compose(style, core, sector, industry);
      const suffix = this.rng.weighted(naming.suffixes, naming.suffixWeights);
      const name = `${shortName} ${suffix}`;
      if (this.names.has(name)) continue;
      this.names.add(name);
      this.coreUse.set(core, (this.coreUse.get(core) ?? 0) + 1);
      return { name, core, shortName };
    }
  }

  /** A fresh distinctive word in the western style (fund houses, brands). */
  brand(): string {
    for (;;) {
      const core = this.core("western");
      if (this.coreUse.has(core)) continue;
      this.coreUse.set(core, 1);
      return core;
    }
  }

  private core(style: NameStyle): string {
    const r = this.rng;
    switch (style) {
      case "western": {
        let s = r.pick(WESTERN_ONSETS) + r.pick(WESTERN_LINKS);
        if (r.chance(0.3)) s += r.pick(WESTERN_LINKS);
        return capitalize((s + r.pick(WESTERN_ENDINGS)).toLowerCase());
      }
      case "german":
        return capitalize((r.pick(GERMAN_ONSETS) + r.pick(EUROPEAN_LINKS) + r.pick(GERMAN_ENDINGS)).toLowerCase());
      case "french":
        return capitalize((r.pick(FRENCH_ONSETS) + r.pick(EUROPEAN_LINKS) + r.pick(FRENCH_ENDINGS)).toLowerCase());
      case "dutch":
        return capitalize((r.pick(DUTCH_ONSETS) + r.pick(EUROPEAN_LINKS) + r.pick(DUTCH_ENDINGS)).toLowerCase());
      case "japanese": {
        const n = r.chance(0.7) ? 3 : 4;
        let s = "";
        for (let i = 0; i < n; i++) s += r.pick(JAPANESE_SYLLABLES);
        return capitalize(s);
      }
      case "chinese":
        return r.pick(CHINESE_SYLLABLES) + r.pick(CHINESE_SYLLABLES).toLowerCase();
    }
  }

  private compose(style: NameStyle, core: string, sector: string, industry: IndustryDef): string {
    const r = this.rng;
    const word = r.pick(industry.nameWords);
    switch (style) {
      case "japanese":
        return `${core} ${r.pick(JAPANESE_WORDS[sector] ?? ["Holdings"])}`;
      case "chinese":
        return r.chance(0.4) ? `${r.pick(CHINESE_PLACES)} ${core} ${word}` : `${core} ${word}`;
      case "german": {
        const x = r.next();
        return x < 0.35 ? core : x < 0.7 ? `${core} ${r.pick(GERMAN_WORDS)}` : `${core} ${word}`;
      }
      case "french": {
        const x = r.next();
        return x < 0.25 ? `Groupe ${core}` : x < 0.6 ? core : `${core} ${word}`;
      }
      case "dutch": {
        const x = r.next();
        return x < 0.1 ? `Koninklijke ${core}` : x < 0.45 ? `${core} Groep` : x < 0.7 ? core : `${core} ${word}`;
      }
      case "western": {
        const x = r.next();
        if (x < 0.38) return `${core} ${word}`;
        if (x < 0.66) return core;
        if (x < 0.82) return `${core} ${r.pick(GENERIC_WORDS)}`;
        if (x < 0.92) return `${core} ${word} ${r.pick(GENERIC_WORDS)}`;
        return `${core} & ${this.core("western")}`;
      }
    }
  }
}

/**
 * Symbols are unique across all listings; this registry hands them out in the
 * formats each exchange uses.
 */
export class SymbolRegistry {
  private readonly taken = new Set<string>();

  constructor(private readonly rng: Random) {}

  claim(symbol: string): boolean {
    if (this.taken.has(symbol)) return false;
    this.taken.add(symbol);
    return true;
  }

  has(symbol: string): boolean {
    return this.taken.has(symbol);
  }

  /** 1–5 letter US ticker derived from the name where possible. */
  usTicker(core: string, preferredLength: number): string {
    const letters = lettersOf(core);
    const cands: string[] = [];
    if (preferredLength <= 2) cands.push(letters.slice(0, preferredLength));
    const consonants = letters[0] + letters.slice(1).replace(/[AEIOUY]/g, "");
    for (const len of [preferredLength, 3, 4]) {
      cands.push(letters.slice(0, len), consonants.slice(0, len), letters.slice(0, len - 1) + (letters[len] ?? ""));
    }
    for (const c of cands) if (c.length >= 1 && c.length <= 5 && this.claim(c)) return c;
    for (let i = 0; i < 50; i++) {
      const c = letters.slice(0, 2) + randomLetters(this.rng, this.rng.intBetween(1, 3));
      if (this.claim(c)) return c;
    }
    for (;;) {
      const c = randomLetters(this.rng, 5);
      if (this.claim(c)) return c;
    }
  }

  /** Letter code plus exchange suffix, e.g. "KEL.L". */
  letterSymbol(core: string, suffix: string, minLen: number, maxLen: number): string {
    const letters = lettersOf(core);
    for (let len = minLen; len <= maxLen; len++) {
      const c = letters.slice(0, len) + suffix;
      if (letters.length >= len && this.claim(c)) return c;
    }
    for (let i = 0; i < 100; i++) {
      const c =
        letters.slice(0, minLen - 1) + randomLetters(this.rng, this.rng.intBetween(1, maxLen - minLen + 1)) + suffix;
      if (this.claim(c)) return c;
    }
    for (;;) {
      const c = randomLetters(this.rng, maxLen) + suffix;
      if (this.claim(c)) return c;
    }
  }

  /** Frankfurt-style 3–4 character code mixing letters and digits, e.g. "KE1.F". */
  frankfurtSymbol(core: string): string {
    const letters = lettersOf(core);
    const tries = [
      letters.slice(0, 3),
      letters.slice(0, 2) + String(this.rng.int(10)),
      String(this.rng.intBetween(1, 9)) + letters.slice(0, 2),
    ];
    for (const t of tries) if (t.length === 3 && this.claim(t + ".F")) return t + ".F";
    for (;;) {
      const c = letters.slice(0, 1) + randomAlnum(this.rng, this.rng.intBetween(2, 3)) + ".F";
      if (this.claim(c)) return c;
    }
  }

  /** Numeric codes (Tokyo "7203.T", Hong Kong "0700.HK"). */
  numericSymbol(suffix: string, lo: number, hi: number, width: number): string {
    for (let i = 0; i < 200; i++) {
      const c = String(this.rng.intBetween(lo, hi)).padStart(width, "0") + suffix;
      if (this.claim(c)) return c;
    }
    // Tokyo has run out of numeric codes too and now issues codes like "130A".
    for (;;) {
      const c = String(this.rng.intBetween(100, 999)) + randomLetters(this.rng, 1) + suffix;
      if (this.claim(c)) return c;
    }
  }

  /** Five-letter US mutual fund ticker ending in X. */
  mutualFundTicker(core: string): string {
    const letters = lettersOf(core);
    for (let i = 0; i < 100; i++) {
      const c = letters.slice(0, 2) + randomLetters(this.rng, 2) + "X";
      if (this.claim(c)) return c;
    }
    for (;;) {
      const c = randomLetters(this.rng, 4) + "X";
      if (this.claim(c)) return c;
    }
  }
}

function lettersOf(s: string): string {
  return s
    .normalize("NFD")
    .replace(/[^A-Za-z]/g, "")
    .toUpperCase();
}

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

function randomLetters(rng: Random, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += LETTERS[rng.int(26)];
  return s;
}

function randomAlnum(rng: Random, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += ALNUM[rng.int(36)];
  return s;
}

/** Invented ETF brands; none is a real issuer's name. */
export const ETF_ISSUERS: readonly string[] = [
  "Norvane",
  "Velquist",
  "Tiderock",
  "Brightmoor",
  "Kestrelon",
  "Solvantis",
  "Ardentia",
  "Meridax",
  "Orvella",
  "Cobaltis",
  "Heliant",
  "Quarrybrook",
];

/** Suffixes that turn a brand into a fund house name. */
export const FUND_COMPANY_FORMS: readonly string[] = [
  "Asset Management",
  "Investors",
  "Capital",
  "Fund Management",
  "Investment Partners",
  "Gestion",
  "Fonds",
  "Advisors",
];
