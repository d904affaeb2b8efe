// Caller tokens: a token verified once is remembered, and what is remembered still answers to the key and the clock.
import { afterEach, describe, expect, it, jest } from "@jest/globals";
import { ANONYMOUS, signCallerToken, verifyCallerToken, type Caller } from "@sca/rpc";

const KEY = "caller-token-test-key-of-at-least-32-characters";
const OTHER_KEY = "another-caller-token-key-of-at-least-32-chars";
const person: Caller = {
  ...ANONYMOUS,
  kind: "user",
  user_id: "0190f0e0-0000-7000-8000-000000000001",
  email: "dev@example.com",
  memberships: [{ team_id: "0190f0e0-0000-7000-8000-0000000000aa", organization_id: null, role: "developer" }],
};

describe("verifyCallerToken", () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it("answers the same caller for a token seen before, frozen so no request can change it for the next", async () => {
    const token = await signCallerToken(person, KEY);
    const first = await verifyCallerToken(token, KEY);
    const again = await verifyCallerToken(token, KEY);
    expect(first).toEqual(person);
    expect(again).toBe(first);
    expect(Object.isFrozen(again) && Object.isFrozen(again.memberships) && Object.isFrozen(again.memberships[0])).toBe(
      true,
    );
  });

  it("refuses a remembered token under another key", async () => {
    const token = await signCallerToken(person, KEY);
    await verifyCallerToken(token, KEY);
    await expect(verifyCallerToken(token, OTHER_KEY)).rejects.toThrow("invalid caller token");
  });

  it("refuses a remembered token once it has expired", async () => {
    jest.useFakeTimers({ now: Date.now(), doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] });
    const token = await signCallerToken(person, KEY);
    await expect(verifyCallerToken(token, KEY)).resolves.toEqual(person);
    jest.setSystemTime(Date.now() + 61_000);
    await expect(verifyCallerToken(token, KEY)).rejects.toThrow("invalid caller token");
  });

  it("refuses a token whose signature was changed, though its claims were seen before", async () => {
    const token = await signCallerToken(person, KEY);
    await verifyCallerToken(token, KEY);
    const forged = `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`;
    await expect(verifyCallerToken(forged, KEY)).rejects.toThrow("invalid caller token");
  });
});
