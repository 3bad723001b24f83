import {
  API_KEY_PATTERN,
  API_KEY_PREFIX,
  describeArgument,
  generateApiKey,
  generateKeyId,
  hashApiKey,
  KEY_ID_PATTERN,
} from "../../../src/platform/auth/auth.keys";
import { InvalidArgumentError } from "../../../src/platform/errors";
import { hasScope, isScope, parseScopes, SCOPES, scopesFromStore } from "../../../src/platform/auth/auth.scopes";

describe("generateApiKey", () => {
  it("makes mdg_ + 43 base64url characters: 32 random bytes, at least 128 bits", () => {
    const key = generateApiKey();

    expect(key).toMatch(API_KEY_PATTERN);
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
    const random = Buffer.from(key.slice(API_KEY_PREFIX.length), "base64url");
    expect(random).toHaveLength(32);
    expect(random.length * 8).toBeGreaterThanOrEqual(128);
  });

  it("never repeats itself and uses the whole base64url alphabet", () => {
    const keys = Array.from({ length: 2_000 }, generateApiKey);

    expect(new Set(keys).size).toBe(keys.length);
    const alphabet = new Set(keys.flatMap((k) => [...k.slice(API_KEY_PREFIX.length)]));
    // 2,000 keys × 43 characters draw every one of the 64 symbols (the last carries 4 bits, but the others do not).
    expect(alphabet.size).toBe(64);
  });
});

describe("generateKeyId", () => {
  it("makes a short public id distinct from any secret", () => {
    const ids = Array.from({ length: 1_000 }, generateKeyId);

    for (const id of ids) {
      expect(id).toMatch(KEY_ID_PATTERN);
      expect(id).not.toMatch(API_KEY_PATTERN);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("hashApiKey", () => {
  it("is sha256, lower-case hex", () => {
    expect(hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashApiKey(generateApiKey())).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("describeArgument", () => {
  it("quotes ordinary values but never repeats what could be a secret", () => {
    expect(describeArgument("options")).toBe('"options"');
    const key = generateApiKey();
    expect(describeArgument(key)).not.toContain(key.slice(4, 12));
    expect(describeArgument("MDG_short")).not.toContain("short");
    expect(describeArgument("x".repeat(40))).not.toContain("xxxx");
  });
});

describe("scopes", () => {
  it("are the nine of the contract", () => {
    expect([...SCOPES].sort()).toEqual([
      "*",
      "bulk",
      "crypto",
      "dividend",
      "etf",
      "fund",
      "portfolio",
      "search",
      "stock",
    ]);
    expect(isScope("etf")).toBe(true);
    expect(isScope("ETF")).toBe(false);
  });

  it("parse from commas, spaces or lists, case-insensitively, without duplicates", () => {
    expect(parseScopes("crypto,etf")).toEqual(["crypto", "etf"]);
    expect(parseScopes(" Crypto , ETF  etf ")).toEqual(["crypto", "etf"]);
    expect(parseScopes(["stock", "dividend,search"])).toEqual(["stock", "dividend", "search"]);
    expect(parseScopes("*")).toEqual(["*"]);
  });

  it("refuse unknown and missing scopes, naming the unknown ones", () => {
    expect(() => parseScopes("etf,options,futures")).toThrow(InvalidArgumentError);
    expect(() => parseScopes("etf,options,futures")).toThrow(/"options", "futures"/);
    expect(() => parseScopes(" , ")).toThrow(/at least one scope/);
    expect(() => parseScopes([])).toThrow(InvalidArgumentError);
  });

  it("do not echo a secret pasted among them", () => {
    const key = generateApiKey();
    let message = "";
    try {
      parseScopes(`etf,${key}`);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/unknown scope/);
    expect(message).not.toContain(key.slice(4, 16));
  });

  it("read from the store drop unknown names, and * covers everything", () => {
    const granted = scopesFromStore(["etf", "options"]);
    expect([...granted]).toEqual(["etf"]);
    expect(hasScope(granted, "etf")).toBe(true);
    expect(hasScope(granted, "fund")).toBe(false);
    expect(hasScope(scopesFromStore(["*"]), "fund")).toBe(true);
  });
});
