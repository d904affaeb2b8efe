// Where the shared data set lives: the test kit's sharedDir (the benchmarks and other services' tests use it too).
export { sharedDir } from "@sca/testkit";
