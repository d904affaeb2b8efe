// One jest run for the whole workspace, in two projects: `pure` tests (named *.pure.test.ts) need nothing but
// Node; `server` tests (every other *.test.ts) run against the real PostgreSQL, Kafka and Redis of ./dev test.
// TypeScript is transformed by swc and kept as ES modules.
const shared = {
  // Node's, noting each file's CPU for ./dev test's timings.
  testEnvironment: "<rootDir>/packages/testkit/src/file-cpu-environment.ts",
  // Only the workspace's own code: .tools/ holds third-party trees (Go's module cache has package.json files and
  // snapshots of its own) that jest's module map must never crawl.
  roots: ["<rootDir>/packages", "<rootDir>/services"],
  modulePathIgnorePatterns: ["<rootDir>/\\.tools/", "<rootDir>/\\.data/"],
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
  // A worker keeps about 50 MB of every ES-module test file it ran (jest's module registry, never freed), so after
  // thirty files every collection walks 2 GB; a worker past this after a file is replaced. 31 gateway files on two
  // workers: 178 CPU s without, 151-163 with (docs/testing.md).
  workerIdleMemoryLimit: "600MB",
  // A global option: jest ignores it inside a project.
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
