import { describe, expect, it } from "@jest/globals";
import { open, seal, secretBoxKey } from "../src/index.ts";

const SECRET = "test-secret-key-that-is-at-least-32-characters";

describe("secret box", () => {
  const key = secretBoxKey(SECRET, "git-credential", "sca-projects");

  it("opens what it sealed, and the sealed text does not contain the plain text", () => {
    const sealed = seal("ghp_plain-token", key);
    expect(sealed).not.toContain("ghp_plain-token");
    expect(open(sealed, key)).toBe("ghp_plain-token");
  });

  it("seals the same text differently each time", () => {
    expect(seal("same", key)).not.toBe(seal("same", key));
  });

  it("refuses a value sealed for another purpose, another service or altered", () => {
    const sealed = seal("secret", key);
    expect(() => open(sealed, secretBoxKey(SECRET, "totp-seed", "sca-projects"))).toThrow();
    expect(() => open(sealed, secretBoxKey(SECRET, "git-credential", "sca-identity"))).toThrow();
    const parts = sealed.split(".");
    parts[3] = Buffer.from("tampered").toString("base64url");
    expect(() => open(parts.join("."), key)).toThrow();
    expect(() => open("not sealed", key)).toThrow();
  });
});
