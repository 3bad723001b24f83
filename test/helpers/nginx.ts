import { existsSync } from "node:fs";

/**
 * Debian's nginx for the deploy tests. Without it a local run skips them and says so; CI (CI=true) fails instead,
 * because .ci/run installs it (`nginx-light`).
 */
const CANDIDATES = [process.env.MDG_NGINX_PATH, "/usr/sbin/nginx", "/usr/bin/nginx"].filter((p): p is string => !!p);
export const nginxPath = CANDIDATES.find((p) => existsSync(p));
const inCi = process.env.CI === "true" || process.env.CI === "1";

/** `describe`, or `describe.skip` with a plain warning naming what was skipped. */
export function describeWithNginx(what: string): jest.Describe {
  if (nginxPath || inCi) return describe;
  console.warn(
    `SKIPPED ${what}: no nginx at ${CANDIDATES.join(" or ")}. Install it with \`apt-get install -y nginx-light\` ` +
      "(or set MDG_NGINX_PATH); CI installs it and fails instead of skipping.",
  );
  return describe.skip;
}

/** The nginx binary; with CI=true and none installed, the failure says what .ci/run should have done. */
export function requireNginx(): string {
  if (!nginxPath) throw new Error(`CI=true and no nginx at ${CANDIDATES.join(" or ")}: .ci/run must install it`);
  return nginxPath;
}
