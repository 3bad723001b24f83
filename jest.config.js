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
  testTimeout: 60_000,
  // Two cores: more workers only fight over them.
  maxWorkers: 2,
};
