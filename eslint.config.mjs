// @ts-check
// One lint setup for the whole tree: typescript-eslint's recommended rules, Prettier for layout (its conflicting
// rules are turned off by eslint-config-prettier), and a hard limit of 120 characters a line, which Prettier alone
// does not hold for comments and strings.
import js from "@eslint/js";
import stylistic from "@stylistic/eslint-plugin";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "coverage/**",
      "test-artifacts/**",
      "data/**",
      // Written by GraphQL Code Generator (npm run generate); a test checks they are current.
      "src/http/rest/rest.operations.generated.ts",
      "examples/client/generated.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    plugins: { "@stylistic": stylistic },
    rules: {
      "@stylistic/max-len": ["error", { code: 120, ignoreUrls: true }],
      // A leading underscore marks a parameter a signature needs but the body does not use.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: {
        require: "readonly",
        module: "writable",
        process: "readonly",
        __dirname: "readonly",
        console: "readonly",
        Buffer: "readonly",
      },
    },
    // Plain CommonJS files (jest config, the bench baseline server) load their modules with require.
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
