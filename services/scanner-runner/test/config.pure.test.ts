// The keys the scanner-runner alone reads (src/config.ts), as the spec states them.
import { describe, expect, it } from "@jest/globals";
import { loadConfig, pickKeys } from "@sca/config";
import { scannerRunnerKeys } from "../src/config.ts";

const load = <K extends keyof typeof scannerRunnerKeys>(names: K[], env: Record<string, string>) =>
  loadConfig(pickKeys(scannerRunnerKeys, names), env);

describe("the scanner-runner's configuration keys", () => {
  it("reads the enrichment feed keys as the spec states them", () => {
    const optIn = (v: string) => load(["EOL_REFRESH_ENABLED"], { EOL_REFRESH_ENABLED: v }).EOL_REFRESH_ENABLED;
    // Only true, 1 and yes enable the live end-of-life fetch; anything else leaves it off rather than failing.
    expect(["true", "1", "YES"].map(optIn)).toEqual([true, true, true]);
    expect(["on", "false", "maybe"].map(optIn)).toEqual([false, false, false]);
    expect(load(["EOL_REFRESH_ENABLED"], {}).EOL_REFRESH_ENABLED).toBe(false);
    const timeout = (v: string) =>
      load(["EOL_REFRESH_TIMEOUT_SECONDS"], { EOL_REFRESH_TIMEOUT_SECONDS: v }).EOL_REFRESH_TIMEOUT_SECONDS;
    expect([timeout("0"), timeout("500"), timeout("20")]).toEqual([1, 120, 20]);
    expect(load(["KEV_REFRESH_ENABLED", "KEV_REFRESH_TIMEOUT_SECONDS", "EOL_REFRESH_TIMEOUT_SECONDS"], {})).toEqual({
      KEV_REFRESH_ENABLED: true,
      KEV_REFRESH_TIMEOUT_SECONDS: 30,
      EOL_REFRESH_TIMEOUT_SECONDS: 15,
    });
    expect(() => load(["EOL_FEED_URL_TEMPLATE"], { EOL_FEED_URL_TEMPLATE: "https://eol.example.com/api" })).toThrow(
      /must contain \{product\}/,
    );
    expect(() => load(["KEV_FEED_URL"], { KEV_FEED_URL: "ftp://example.com/kev.json" })).toThrow(/http\(s\) URL/);
  });

  it("reads the scan scope, license lookup and fingerprint keys with the spec's defaults", () => {
    expect(
      load(
        [
          "SCAN_SCOPE_FILTER_ENABLED",
          "SCAN_SCOPE_FILTER_MAVEN_ENABLED",
          "SCAN_SCOPE_FILTER_NODE_ENABLED",
          "LICENSE_FETCH_ENABLED",
          "FINGERPRINT_ENABLED",
          "FINGERPRINT_API_KEY",
          "FINGERPRINT_TIMEOUT_SECONDS",
        ],
        {},
      ),
    ).toEqual({
      SCAN_SCOPE_FILTER_ENABLED: true,
      SCAN_SCOPE_FILTER_MAVEN_ENABLED: true,
      SCAN_SCOPE_FILTER_NODE_ENABLED: true,
      LICENSE_FETCH_ENABLED: true,
      FINGERPRINT_ENABLED: false,
      FINGERPRINT_API_KEY: "",
      FINGERPRINT_TIMEOUT_SECONDS: 300,
    });
    expect(load(["FINGERPRINT_API_URL"], {}).FINGERPRINT_API_URL).toMatch(/^https:\/\//);
    expect(() => load(["FINGERPRINT_API_URL"], { FINGERPRINT_API_URL: "file:///etc/passwd" })).toThrow(/http\(s\) URL/);
  });
});
