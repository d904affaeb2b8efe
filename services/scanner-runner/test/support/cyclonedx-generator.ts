// The generator lives in the test kit (the benchmarks in bench/ use it too).
export { generateCycloneDxBom, type GeneratedBomOptions } from "@sca/testkit";
