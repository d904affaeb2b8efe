// The UI suite (run through e2e/run.ts, which starts the portal): Debian's chromium, never a downloaded browser;
// one worker (the machine's two cores run the portal too); screenshots of the main pages go to .data/ui/.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: ".",
  testMatch: "*.spec.ts",
  outputDir: "../../../.data/ui/results",
  workers: 1,
  retries: 0,
  timeout: 180_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    baseURL: process.env.UI_BASE_URL,
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" },
    viewport: { width: 1280, height: 800 },
    trace: "retain-on-failure",
  },
});
