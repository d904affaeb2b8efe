import { describe, expect, it } from "@jest/globals";
import { generateSync } from "otplib";
import { TEST_SECRET } from "@sca/testkit";
import { hashOpaqueToken, newOpaqueToken } from "../src/domain/opaque-token.ts";
import { hashPassword, needsRehash, parseHash, verifyPassword } from "../src/domain/password-hash.ts";
import { newPasswordViolation } from "../src/domain/password-policy.ts";
import { resetCooldownSecondsLeft, resetUrl } from "../src/domain/password-reset-link.ts";
import { newRecoveryCodes, recoveryCodeDigest } from "../src/domain/recovery-codes.ts";
import { decideRefresh, refreshExpiry } from "../src/domain/refresh-rotation.ts";
import { challengeUserId, issueChallenge } from "../src/domain/second-factor-challenge.ts";
import { open, seal, secretBoxKey } from "../src/domain/secret-box.ts";
import { afterFailure, CLEAR, refusalSecondsLeft, type ThrottlePolicy } from "../src/domain/sign-in-throttle.ts";
import { acceptTotp, newTotpSecret, totpUri } from "../src/domain/totp.ts";
import { verifyAccessToken } from "../src/domain/access-token.ts";

const T0 = new Date("2026-11-23T10:00:00Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe("password policy", () => {
  it("bounds length in characters (8..256), counting code points", () => {
    expect(newPasswordViolation("Ab3$xyz")).toMatch(/at least 8/);
    expect(newPasswordViolation("Zq8!vPw2")).toBeNull();
    expect(newPasswordViolation("🔑".repeat(8))).toBeNull(); // 16 UTF-16 units, 8 characters
    expect(newPasswordViolation("x".repeat(250) + "Zq8!vPw2")).toMatch(/at most 256/);
    expect(newPasswordViolation("x".repeat(248) + "Zq8!vPw2")).toBeNull();
  });

  it("refuses common passwords from the list, whatever the case", () => {
    for (const p of ["password", "12345678", "PASSWORD1", "iloveyou", "qwertyuiop", "Sunshine1"]) {
      expect(newPasswordViolation(p)).toMatch(/too common/);
    }
    expect(newPasswordViolation("violet-harbour-engine-42")).toBeNull();
  });
});

describe("password hashes", () => {
  it("are PHC strings carrying scrypt parameters, salted, and verify only the right password", async () => {
    const a = await hashPassword("violet-harbour-engine-42");
    const b = await hashPassword("violet-harbour-engine-42");
    expect(a).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("violet-harbour-engine-42", a)).toBe(true);
    expect(await verifyPassword("violet-harbour-engine-43", a)).toBe(false);
    expect(await verifyPassword("anything", "not-a-hash")).toBe(false);
    expect(needsRehash(a)).toBe(false);
  });

  it("verify hashes made with older parameters and flag them for re-hashing", async () => {
    const old = await hashPassword("violet-harbour-engine-42", { logN: 10, r: 8, p: 1 });
    expect(parseHash(old)?.params).toEqual({ logN: 10, r: 8, p: 1 });
    expect(await verifyPassword("violet-harbour-engine-42", old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
  });
});

describe("opaque tokens", () => {
  it("are 256-bit url-safe randoms stored as SHA-256", () => {
    const t = newOpaqueToken();
    expect(t.raw).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(t.hash).toBe(hashOpaqueToken(t.raw));
    expect(t.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(newOpaqueToken().raw).not.toBe(t.raw);
  });
});

describe("refresh rotation", () => {
  const live = { rotatedAt: null, revokedAt: null, expiresAt: at(3600), userActive: true };
  it("rotates a live token", () => expect(decideRefresh(live, T0)).toEqual({ kind: "rotate" }));
  it("treats a rotated token as reuse, even when also revoked or expired", () => {
    expect(decideRefresh({ ...live, rotatedAt: at(-5) }, T0)).toEqual({ kind: "reuse" });
    expect(decideRefresh({ ...live, rotatedAt: at(-5), revokedAt: at(-1), expiresAt: at(-1) }, T0)).toEqual({
      kind: "reuse",
    });
  });
  it("refuses unknown, revoked, expired tokens and deactivated users", () => {
    expect(decideRefresh(null, T0)).toEqual({ kind: "refuse" });
    expect(decideRefresh({ ...live, revokedAt: at(-1) }, T0)).toEqual({ kind: "refuse" });
    expect(decideRefresh({ ...live, expiresAt: T0 }, T0)).toEqual({ kind: "refuse" });
    expect(decideRefresh({ ...live, userActive: false }, T0)).toEqual({ kind: "refuse" });
  });
  it("gives each token a full lifetime", () => expect(refreshExpiry(T0, 7)).toEqual(at(7 * 86400)));
});

describe("sign-in throttle", () => {
  const policy: ThrottlePolicy = { enabled: true, failures: 3, windowsSeconds: [60, 300, 900] };
  it("refuses after the configured consecutive failures, with escalating windows, the last repeating", () => {
    let s = CLEAR;
    s = afterFailure(s, policy, T0);
    s = afterFailure(s, policy, T0);
    expect(refusalSecondsLeft(s, policy, T0)).toBe(0);
    s = afterFailure(s, policy, T0);
    expect(refusalSecondsLeft(s, policy, T0)).toBe(60);
    expect(refusalSecondsLeft(s, policy, at(59.5))).toBe(1);
    expect(refusalSecondsLeft(s, policy, at(60))).toBe(0);
    s = afterFailure(s, policy, at(60));
    expect(refusalSecondsLeft(s, policy, at(60))).toBe(300);
    s = afterFailure(s, policy, at(400));
    expect(refusalSecondsLeft(s, policy, at(400))).toBe(900);
    s = afterFailure(s, policy, at(2000));
    expect(refusalSecondsLeft(s, policy, at(2000))).toBe(900);
    expect(s.consecutiveFailures).toBe(6);
  });
  it("never refuses when disabled", () => {
    const off = { ...policy, enabled: false };
    let s = CLEAR;
    for (let i = 0; i < 10; i++) s = afterFailure(s, off, T0);
    expect(refusalSecondsLeft(s, off, T0)).toBe(0);
  });
  it("with one window, repeats it", () => {
    const one = { ...policy, failures: 1, windowsSeconds: [30] };
    const s = afterFailure(afterFailure(CLEAR, one, T0), one, at(31));
    expect(refusalSecondsLeft(s, one, at(31))).toBe(30);
  });
});

describe("password reset link and cooldown", () => {
  it("puts the token in the query of the base URL", () => {
    expect(resetUrl("https://portal.example.com/reset-password?lang=en", "abc_-1")).toBe(
      "https://portal.example.com/reset-password?lang=en&token=abc_-1",
    );
  });
  it("counts the cooldown down from the last request", () => {
    expect(resetCooldownSecondsLeft(null, 300, T0)).toBe(0);
    expect(resetCooldownSecondsLeft(at(-10), 300, T0)).toBe(290);
    expect(resetCooldownSecondsLeft(at(-300), 300, T0)).toBe(0);
    expect(resetCooldownSecondsLeft(at(-1), 0, T0)).toBe(0);
  });
});

describe("TOTP", () => {
  const secret = newTotpSecret();
  const codeAt = (d: Date) => generateSync({ secret, epoch: Math.floor(d.getTime() / 1000) });

  it("accepts the current code and one step of drift either side, not two", () => {
    expect(acceptTotp(secret, codeAt(T0), T0, null)).not.toBeNull();
    expect(acceptTotp(secret, codeAt(at(-30)), T0, null)).not.toBeNull();
    expect(acceptTotp(secret, codeAt(at(30)), T0, null)).not.toBeNull();
    expect(acceptTotp(secret, codeAt(at(-90)), T0, null)).toBeNull();
  });
  it("refuses a code of a step already used (replay) or earlier", () => {
    const step = acceptTotp(secret, codeAt(T0), T0, null)!;
    expect(acceptTotp(secret, codeAt(T0), T0, step)).toBeNull();
    expect(acceptTotp(secret, codeAt(at(-30)), T0, step)).toBeNull();
    expect(acceptTotp(secret, codeAt(at(30)), at(30), step)).toBe(step + 1);
  });
  it("ignores spaces and refuses anything but six digits", () => {
    const code = codeAt(T0);
    expect(acceptTotp(secret, `${code.slice(0, 3)} ${code.slice(3)}`, T0, null)).not.toBeNull();
    expect(acceptTotp(secret, "abcdef", T0, null)).toBeNull();
    expect(acceptTotp(secret, `${code}0`, T0, null)).toBeNull();
  });
  it("builds an otpauth URI an authenticator app reads", () => {
    const uri = new URL(totpUri(secret, "ada@example.com"));
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.searchParams.get("secret")).toBe(secret);
    expect(uri.searchParams.get("issuer")).toBe("SCA Portal");
  });
});

describe("recovery codes", () => {
  it("are ten distinct codes whose digests ignore case and separators", () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect(recoveryCodeDigest(codes[0]!.toUpperCase().replace("-", " "))).toBe(recoveryCodeDigest(codes[0]!));
    expect(recoveryCodeDigest("123456")).toBeNull();
  });
});

describe("sealed secrets", () => {
  it("round-trip under the key, fail under another key or when altered", () => {
    const key = secretBoxKey(TEST_SECRET, "sca/identity/totp-secret/v1");
    const sealed = seal("JBSWY3DPEHPK3PXP", key);
    expect(sealed).not.toContain("JBSWY3DPEHPK3PXP");
    expect(open(sealed, key)).toBe("JBSWY3DPEHPK3PXP");
    expect(() => open(sealed, secretBoxKey(TEST_SECRET, "another purpose"))).toThrow();
    const parts = sealed.split(".");
    parts[3] = Buffer.from("KBSWY3DPEHPK3PXP").toString("base64url");
    expect(() => open(parts.join("."), key)).toThrow();
  });
});

describe("second-factor challenge", () => {
  it("names the user while fresh, and is not an access token", async () => {
    const { token, expiresIn } = await issueChallenge("0190f0e0-0000-7000-8000-000000000001", TEST_SECRET, T0);
    expect(expiresIn).toBe(300);
    expect(await challengeUserId(token, TEST_SECRET, at(299))).toBe("0190f0e0-0000-7000-8000-000000000001");
    expect(await challengeUserId(token, TEST_SECRET, at(301))).toBeNull();
    expect(await challengeUserId(token, "another-secret-key-that-is-also-32-chars", at(1))).toBeNull();
    expect(await verifyAccessToken(token, TEST_SECRET)).toBeNull();
  });
});
