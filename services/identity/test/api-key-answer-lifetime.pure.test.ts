import { describe, expect, it } from "@jest/globals";
import { answerLifetime } from "../src/rpc/access-service.ts";

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
