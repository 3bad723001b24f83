/**
 * The layers of src/ and the one direction their imports may point (docs/architecture.md):
 *
 *   app.ts / main.ts (composition root) ─► application ─► tools ─► sources ─► domain ─► platform
 *                                      └─► http ──────────────────────────► domain
 *
 * `npm run lint` runs this: an import that points up a layer, or any cycle, fails CI.
 */
const layer = (name) => `^src/${name}/`;
const ROOT = "^src/(app|main)\\.ts$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "A cycle makes two modules one; break it by moving the shared part down a layer.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "platform-is-the-bottom",
      comment: "platform/ (config, logging, errors, clock, metrics registry, quotas) imports nothing else of ours.",
      severity: "error",
      from: { path: layer("platform") },
      to: { path: "^src/", pathNot: layer("platform") },
    },
    {
      name: "domain-imports-only-platform",
      comment: "The domain (types, maths, services, the answers port, the source ports) imports only platform/.",
      severity: "error",
      from: { path: layer("domain") },
      to: { path: "^src/", pathNot: [layer("domain"), layer("platform")] },
    },
    {
      name: "sources-implement-ports",
      comment: "An adapter imports the ports and platform/, never a door, the application layer or a tool.",
      severity: "error",
      from: { path: layer("sources") },
      to: { path: "^src/", pathNot: [layer("sources"), layer("domain"), layer("platform")] },
    },
    {
      name: "http-is-a-door",
      comment:
        "REST, GraphQL, bulk and OpenAPI read the domain through its ports; a concrete source comes from the root.",
      severity: "error",
      from: { path: layer("http") },
      to: { path: "^src/", pathNot: [layer("http"), layer("domain"), layer("platform")] },
    },
    {
      name: "tools-stay-tools",
      comment: "The sample generator builds stores through the sources; it never reaches a door or the application.",
      severity: "error",
      from: { path: layer("tools") },
      to: { path: "^src/", pathNot: [layer("tools"), layer("sources"), layer("domain"), layer("platform")] },
    },
    {
      name: "application-below-the-root",
      comment: "Jobs and CLIs combine sources and the domain; they never import a door or the composition root.",
      severity: "error",
      from: { path: layer("application") },
      to: { path: [layer("http"), ROOT] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^src/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
