// The keys admin alone reads (src/config.ts), as the spec states them.
import { describe, expect, it } from "@jest/globals";
import { loadConfig, pickKeys } from "@sca/config";
import { adminKeys } from "../src/config.ts";

const load = <K extends keyof typeof adminKeys>(names: K[], env: Record<string, string>) =>
  loadConfig(pickKeys(adminKeys, names), env);

describe("admin's configuration keys", () => {
  it("takes AUDIT_EXPORT_URL as an http(s) URL or empty (off), never printing it in an error", () => {
    expect(load(["AUDIT_EXPORT_URL"], {})).toMatchObject({ AUDIT_EXPORT_URL: "" });
    try {
      load(["AUDIT_EXPORT_URL"], { AUDIT_EXPORT_URL: "ftp://files.example.com/xoxsecret" });
      throw new Error("expected a ConfigError");
    } catch (err) {
      expect((err as Error).message).toMatch(/AUDIT_EXPORT_URL must be an http\(s\) URL/);
      expect((err as Error).message).not.toContain("xoxsecret");
    }
  });
});
