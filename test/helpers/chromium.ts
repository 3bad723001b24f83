import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/**
 * Debian's Chromium for the browser tests. Without it a local run skips them and says so; CI (CI=true) fails
 * instead, because .ci/run installs it.
 */
const CANDIDATES = [process.env.MDG_CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(
  (p): p is string => !!p,
);
const executablePath = CANDIDATES.find((p) => existsSync(p));
const inCi = process.env.CI === "true" || process.env.CI === "1";

// As root, and on a machine with no way out: without the background-networking flags Chromium keeps trying hosts.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** `describe`, or `describe.skip` with a plain warning naming what was skipped. */
export function describeWithChromium(what: string): jest.Describe {
  if (executablePath || inCi) return describe;
  console.warn(
    `SKIPPED ${what}: no Chromium at ${CANDIDATES.join(" or ")}. Install it with \`apt-get install -y chromium\` ` +
      "(or set MDG_CHROMIUM_PATH); CI installs it and fails instead of skipping.",
  );
  return describe.skip;
}

export async function launchChromium(): Promise<Browser> {
  if (!executablePath) {
    throw new Error(`CI=true and no Chromium at ${CANDIDATES.join(" or ")}: .ci/run must install it`);
  }
  return chromium.launch({ executablePath, headless: true, args: ARGS, timeout: 30_000 });
}
