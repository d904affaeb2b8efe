// One jest run for the whole workspace. TypeScript is transformed by swc and kept as ES modules.
export default {
  testEnvironment: "node",
  testMatch: ["<rootDir>/{packages,services}/*/test/**/*.test.ts"],
  extensionsToTreatAsEsm: [".ts"],
  transform: {
    "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2024" }, module: { type: "es6" } }],
  },
  maxWorkers: 2,
  testTimeout: 30000,
  globalSetup: "<rootDir>/packages/testkit/src/global-setup.ts",
};
