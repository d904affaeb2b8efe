// What `import { ... } from "@jest/globals"` gives a test file under jest-light-runner (jest.config.js): the runner
// sets jest's functions as globals before any test file loads, and test-worker-setup.ts resolves the package here.
import type * as JestGlobals from "@jest/globals";

const given = globalThis as unknown as typeof JestGlobals;
export const { expect, it, test, describe, beforeAll, afterAll, beforeEach, afterEach, jest } = given;
