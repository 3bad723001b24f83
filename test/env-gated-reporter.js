// @ts-check
const { readFileSync } = require("node:fs");
const { relative } = require("node:path");

/**
 * Says plainly, after jest's summary, which suites of this run did not run
 * their tests because a service they need is not configured, and how to run
 * them. A suite declares what it needs with a comment line:
 *
 *   // @requires-env REDIS_URL redis://127.0.0.1:6379
 *
 * (the variable, then an example value for the command it prints).
 */
class EnvGatedReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const missing = new Map();
    for (const suite of results.testResults) {
      let text;
      try {
        text = readFileSync(suite.testFilePath, "utf8");
      } catch {
        continue;
      }
      for (const m of text.matchAll(/^\/\/ @requires-env (\w+)(?: (\S+))?/gm)) {
        const [, name, example] = m;
        if (process.env[name]) continue;
        const file = relative(this.rootDir, suite.testFilePath);
        const entry = missing.get(name) ?? { example: example ?? "…", files: [] };
        entry.files.push(file);
        missing.set(name, entry);
      }
    }
    if (missing.size === 0) return;
    const lines = ["", "Suites left out because a service is not configured (their tests were skipped):"];
    for (const [name, { example, files }] of missing) {
      lines.push(`  ${name} is unset: ${files.join(", ")}`);
      lines.push(`    run them with: ${name}=${example} npx jest ${files.join(" ")}`);
    }
    lines.push("  (.ci/run starts the services and sets these variables.)", "");
    process.stdout.write(lines.join("\n") + "\n");
  }
}

module.exports = EnvGatedReporter;
