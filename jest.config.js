// One jest run for the whole workspace, in two projects: `pure` tests (named *.pure.test.ts) need nothing but
// Node; `server` tests (every other *.test.ts) run against the real PostgreSQL, Kafka and Redis of ./dev test.
//
// Test files run on jest-light-runner: in worker processes, loaded as Node loads our code everywhere else (its own
// TypeScript type stripping, ES modules), each module once per worker. jest's default runner evaluated every test
// file's whole module graph (the services, MikroORM, kafkajs, zod, ...) again in a sandbox of its own: about a third
// of a server file's CPU, and its module registries were never freed (docs/testing.md). The price: no module mocks
// (we have none) and no per-file sandbox, so a test file must leave no global state behind it.
const shared = {
  runner: "jest-light-runner/child-process",
  // @jest/globals for the test files, and each file's CPU noted.
  setupFiles: ["<rootDir>/packages/testkit/src/test-worker-setup.ts"],
  // Only the workspace's own code: .tools/ holds third-party trees (Go's module cache has package.json files and
  // snapshots of its own) that jest's module map must never crawl.
  roots: ["<rootDir>/packages", "<rootDir>/services"],
  modulePathIgnorePatterns: ["<rootDir>/\\.tools/", "<rootDir>/\\.data/"],
  // For what jest itself loads (the global set-up and teardown): TypeScript transformed by swc, kept ES modules.
  extensionsToTreatAsEsm: [".ts"],
  transform: {
    "^.+\\.ts$": [
      "@swc/jest",
      {
        jsc: { parser: { syntax: "typescript" }, target: "es2024", experimental: { keepImportAttributes: true } },
        module: { type: "es6" },
      },
    ],
  },
};

export default {
  // Three on two cores: a server test spends about 40% of its time waiting on the servers (a CPU profile of three
  // gateway files in one process: 44% idle), so two workers leave a core half idle once the static checks end.
  maxWorkers: 3,
  // A global option: the runner applies it to each test and hook (patches/jest-light-runner@0.8.2.patch).
  testTimeout: 30000,
  projects: [
    { ...shared, displayName: "pure", testMatch: ["<rootDir>/{packages,services}/*/test/**/*.pure.test.ts"] },
    {
      ...shared,
      displayName: "server",
      testMatch: ["<rootDir>/{packages,services}/*/test/**/*.test.ts"],
      testPathIgnorePatterns: ["\\.pure\\.test\\.ts$"],
      globalSetup: "<rootDir>/packages/testkit/src/global-setup.ts",
      globalTeardown: "<rootDir>/packages/testkit/src/global-teardown.ts",
    },
  ],
};
