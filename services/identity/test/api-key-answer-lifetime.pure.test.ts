import { describe, expect, it } from "@jest/globals";
import { accessAnswerLifetime, answerLifetime } from "../src/rpc/access-service.ts";

describe("how long the gateway may reuse an API-key answer", () => {
  const now = new Date("2026-11-22T12:00:00Z");
  it("is 30 s for a key that never expires", () => {
    expect(answerLifetime(null, now)).toBe(30);
  });
  it("never outlives the key", () => {
    expect(answerLifetime(new Date("2026-11-22T12:00:10.900Z"), now)).toBe(10);
    expect(answerLifetime(new Date("2026-11-22T13:00:00Z"), now)).toBe(30);
    expect(answerLifetime(new Date("2026-11-22T12:00:00.500Z"), now)).toBe(0);
    expect(answerLifetime(new Date("2026-11-22T11:00:00Z"), now)).toBe(0);
  });
});

describe("how long the gateway may reuse an access-token answer", () => {
  const now = new Date("2026-11-22T12:00:00Z");
  const SESSION = "0190f0e0-0000-7000-8000-00000000000a";
  it("is never for a token that names no session (it could not be ended)", () => {
    expect(accessAnswerLifetime(null, new Date("2026-11-22T13:00:00Z"), now)).toBe(0);
  });
  it("is 30 s, never past the token's expiry", () => {
    expect(accessAnswerLifetime(SESSION, new Date("2026-11-22T12:30:00Z"), now)).toBe(30);
    expect(accessAnswerLifetime(SESSION, new Date("2026-11-22T12:00:07.900Z"), now)).toBe(7);
    expect(accessAnswerLifetime(SESSION, new Date("2026-11-22T11:59:00Z"), now)).toBe(0);
  });
});
