import { readdirSync } from "node:fs";
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

const services = readdirSync(new URL("./services", import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

// The import boundaries of docs/CONTRIBUTING.md. A service reaches another only through its contract (proto/) or
// the test kit; domain/ holds pure rules; packages hold no service code; a benchmark reaches services as clients do
// (or through the test kit); a pure test (*.pure.test.ts) needs nothing but Node. ESLint keeps one setting of a rule per file (a later block replaces an earlier one), so each block below
// lists every pattern that applies to its files.
const otherServices = (name) => ({
  regex: `(^|/)(${services.filter((other) => other !== name).join("|")})/(src|test)/`,
  message:
    "A service never imports another service's code: use its contract in proto/ or start it through @sca/testkit.",
});
const noServiceCode = { regex: "(^|/)services/", message: "Shared packages hold no service code." };
const noServiceInternals = {
  regex: "(^|/)services/[^/]+/(src|test)/",
  message:
    "A benchmark goes through the front door: the API, @sca/testkit (startService, fixturesOf) and packages, never a service's code.",
};
const pureDomain = {
  regex: "(^|/)(store|rpc|events|clients|commands)/|^(@mikro-orm/|kafkajs$|ioredis$|@sca/(db|kafka|redis)$)",
  message: "domain/ holds pure rules: no persistence, handlers, events or I/O clients.",
};
const serverTestMessage =
  "A test that starts or reaches a server is a server test: name it *.test.ts, not *.pure.test.ts.";
const serverReach = { regex: "^(@sca/(db|redis)|@mikro-orm/|kafkajs$|ioredis$)", message: serverTestMessage };
const serverStarters = {
  name: "@sca/testkit",
  importNames: ["startService", "testServers", "schemaDrift", "EventReader", "fixturesOf", "startTestProvider"],
  message: serverTestMessage,
};
const restrict = (patterns, paths = []) => ({ "no-restricted-imports": ["error", { paths, patterns }] });

const boundaries = [
  ...services.flatMap((name) => [
    { files: [`services/${name}/**/*.ts`], rules: restrict([otherServices(name)]) },
    { files: [`services/${name}/src/domain/**/*.ts`], rules: restrict([otherServices(name), pureDomain]) },
    {
      files: [`services/${name}/**/*.pure.test.ts`],
      rules: restrict([otherServices(name), serverReach], [serverStarters]),
    },
  ]),
  { files: ["packages/**/*.ts"], rules: restrict([noServiceCode]) },
  { files: ["packages/**/*.pure.test.ts"], rules: restrict([noServiceCode, serverReach], [serverStarters]) },
  { files: ["bench/**/*.ts"], rules: restrict([noServiceInternals]) },
];

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      ".tools/**",
      ".data/**",
      "proto/gen/**",
      "deploy/**",
      "packages/api-client/gen/**",
      "services/frontend/dist/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "no-console": "error",
    },
  },
  ...boundaries,
  {
    files: ["**/test/**", "bench/**", "fuzz/**", "scripts/**"],
    rules: {
      "no-console": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
    },
  },
  // The single-page app runs in the browser.
  { files: ["services/frontend/app/**/*.{ts,tsx}"], languageOptions: { globals: globals.browser } },
  { files: ["**/*.js"], extends: [tseslint.configs.disableTypeChecked] },
);
