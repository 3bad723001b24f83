// Dates in tests are UTC whatever the machine says; set before workers start so they inherit it.
process.env.TZ = "UTC";

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.spec.ts"],
  transform: { "^.+\\.ts$": ["@swc/jest"] },
  setupFiles: ["reflect-metadata"],
  globalSetup: "<rootDir>/test/global-setup.ts",
  // The default output, then a plain note of suites skipped for want of REDIS_URL, DATABASE_URL, … (see the reporter).
  reporters: ["default", "<rootDir>/test/env-gated-reporter.js"],
  testTimeout: 60_000,
  // Two cores: more workers only fight over them.
  maxWorkers: 2,
};
