// The keys projects alone reads (src/config.ts), as the spec states them.
import { describe, expect, it } from "@jest/globals";
import { loadConfig, pickKeys } from "@sca/config";
import { projectsKeys } from "../src/config.ts";

const load = <K extends keyof typeof projectsKeys>(names: K[], env: Record<string, string>) =>
  loadConfig(pickKeys(projectsKeys, names), env);

describe("projects' configuration keys", () => {
  it("reads the vulnerability SLA keys as the spec states them", () => {
    const days = (v: string) => load(["VULN_SLA_DAYS_HIGH"], { VULN_SLA_DAYS_HIGH: v }).VULN_SLA_DAYS_HIGH;
    // An invalid window falls back to the default rather than stopping the process.
    expect(["14", "0", "-3", "soon", "99999"].map(days)).toEqual([14, 30, 30, 30, 30]);
    expect(
      load(["VULN_SLA_DAYS_CRITICAL", "VULN_SLA_DAYS_HIGH", "VULN_SLA_DAYS_MEDIUM", "VULN_SLA_DAYS_LOW"], {}),
    ).toEqual({ VULN_SLA_DAYS_CRITICAL: 7, VULN_SLA_DAYS_HIGH: 30, VULN_SLA_DAYS_MEDIUM: 90, VULN_SLA_DAYS_LOW: 180 });
    const alerts = (v: string) =>
      load(["VULN_SLA_ALERTS_ENABLED"], { VULN_SLA_ALERTS_ENABLED: v }).VULN_SLA_ALERTS_ENABLED;
    // Only false, 0 and no turn the sweep off.
    expect(["false", "0", "NO"].map(alerts)).toEqual([false, false, false]);
    expect(["off", "true", "maybe"].map(alerts)).toEqual([true, true, true]);
    expect(load(["VULN_SLA_ALERTS_ENABLED"], {}).VULN_SLA_ALERTS_ENABLED).toBe(true);
  });

  it("reads the signing keys as the spec states them: key-based, off until a key is given", () => {
    const signing = load(
      ["SIGNING_KEYLESS", "SIGNING_KEY_PATH", "SIGNING_KEY_PASSWORD_ENCRYPTED", "SBOM_AUTHOR", "SLSA_BUILDER_ID"],
      {},
    );
    expect({ ...signing, ...load(["SERVICE_VERSION"], {}) }).toEqual({
      SIGNING_KEYLESS: false,
      SIGNING_KEY_PATH: "",
      SIGNING_KEY_PASSWORD_ENCRYPTED: "",
      SBOM_AUTHOR: "",
      SLSA_BUILDER_ID: "",
      SERVICE_VERSION: "unknown",
    });
    expect(load(["SIGNING_KEYLESS"], { SIGNING_KEYLESS: "true" }).SIGNING_KEYLESS).toBe(true);
  });
});
