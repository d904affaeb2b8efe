import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { SignJWT } from "jose";
import { TEST_SECRET } from "@sca/testkit";
import { issueAccessToken, verifyAccessToken } from "../src/domain/access-token.ts";

const USER = "0190f0e0-0000-7000-8000-000000000001";
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);

describe("access tokens", () => {
  it("issues HS256 tokens that verify, with the configured lifetime", async () => {
    const { token, expiresIn } = await issueAccessToken(USER, TEST_SECRET, 30);
    expect(expiresIn).toBe(1800);
    expect(JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString())).toMatchObject({ alg: "HS256" });
    const claims = await verifyAccessToken(token, TEST_SECRET);
    expect(claims?.userId).toBe(USER);
    expect(claims!.expiresAt.getTime() - Date.now()).toBeGreaterThan(1790_000);
  });

  it("names the session it was issued to, and refuses a session claim that is not a UUID", async () => {
    const session = "0190f0e0-0000-7000-8000-00000000000b";
    const { token } = await issueAccessToken(USER, TEST_SECRET, 30, new Date(), session);
    expect((await verifyAccessToken(token, TEST_SECRET))?.sessionId).toBe(session);
    expect(
      (await verifyAccessToken((await issueAccessToken(USER, TEST_SECRET, 30)).token, TEST_SECRET))?.sessionId,
    ).toBe(null);
    const odd = await new SignJWT({ type: "access", sid: "not-a-uuid" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(USER)
      .setIssuer("sca-identity")
      .setIssuedAt(now())
      .setExpirationTime(now() + 60)
      .sign(new TextEncoder().encode(TEST_SECRET));
    expect(await verifyAccessToken(odd, TEST_SECRET)).toBeNull();
  });

  it("refuses a token signed with another key", async () => {
    const { token } = await issueAccessToken(USER, "another-secret-key-that-is-also-32-chars", 30);
    expect(await verifyAccessToken(token, TEST_SECRET)).toBeNull();
  });

  it("refuses an expired token", async () => {
    const { token } = await issueAccessToken(USER, TEST_SECRET, 1, new Date(Date.now() - 2 * 60_000));
    expect(await verifyAccessToken(token, TEST_SECRET)).toBeNull();
  });

  it("refuses alg none", async () => {
    const unsigned = `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: USER, type: "access", iss: "sca-identity", exp: now() + 600 })}.`;
    expect(await verifyAccessToken(unsigned, TEST_SECRET)).toBeNull();
  });

  it("refuses other HMAC algorithms even under the right key", async () => {
    const token = await new SignJWT({ type: "access" })
      .setProtectedHeader({ alg: "HS512" })
      .setSubject(USER)
      .setIssuer("sca-identity")
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode(TEST_SECRET));
    expect(await verifyAccessToken(token, TEST_SECRET)).toBeNull();
  });

  it("refuses RS256 (algorithm confusion)", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const token = await new SignJWT({ type: "access" })
      .setProtectedHeader({ alg: "RS256" })
      .setSubject(USER)
      .setIssuer("sca-identity")
      .setExpirationTime("10m")
      .sign(privateKey);
    expect(await verifyAccessToken(token, TEST_SECRET)).toBeNull();
  });

  it("refuses a validly signed token that is not an access token", async () => {
    const key = new TextEncoder().encode(TEST_SECRET);
    const refreshLike = await new SignJWT({ type: "refresh" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(USER)
      .setIssuer("sca-identity")
      .setExpirationTime("10m")
      .sign(key);
    const noSubject = await new SignJWT({ type: "access" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("sca-identity")
      .setExpirationTime("10m")
      .sign(key);
    const foreignIssuer = await new SignJWT({ type: "access" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(USER)
      .setIssuer("someone-else")
      .setExpirationTime("10m")
      .sign(key);
    for (const t of [refreshLike, noSubject, foreignIssuer]) expect(await verifyAccessToken(t, TEST_SECRET)).toBeNull();
  });

  it("refuses garbage", async () => {
    for (const t of ["", "abc", "a.b.c", "tos_x_y"]) expect(await verifyAccessToken(t, TEST_SECRET)).toBeNull();
  });
});
