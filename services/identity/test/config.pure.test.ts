// The keys identity alone reads (src/config.ts), as the spec states them.
import { describe, expect, it } from "@jest/globals";
import { ConfigError, loadConfig, pickKeys } from "@sca/config";
import { identityKeys } from "../src/config.ts";

const load = <K extends keyof typeof identityKeys>(names: K[], env: Record<string, string>) =>
  loadConfig(pickKeys(identityKeys, names), env);

describe("identity's configuration keys", () => {
  it("applies the spec's defaults", () => {
    const c = load(
      [
        "ACCESS_TOKEN_EXPIRE_MINUTES",
        "REFRESH_TOKEN_EXPIRE_DAYS",
        "LOGIN_THROTTLE_WINDOWS",
        "LOGIN_THROTTLE_FAILURES",
        "AUTH_SELF_REGISTRATION",
      ],
      {},
    );
    expect(c).toEqual({
      ACCESS_TOKEN_EXPIRE_MINUTES: 30,
      REFRESH_TOKEN_EXPIRE_DAYS: 7,
      LOGIN_THROTTLE_WINDOWS: [60, 300, 900, 1800],
      LOGIN_THROTTLE_FAILURES: 10,
      AUTH_SELF_REGISTRATION: true,
    });
  });

  it("rejects LOGIN_THROTTLE_WINDOWS values below 1, naming the key", () => {
    expect(() => load(["LOGIN_THROTTLE_WINDOWS"], { LOGIN_THROTTLE_WINDOWS: "60,0,900" })).toThrow(ConfigError);
    expect(() => load(["LOGIN_THROTTLE_WINDOWS"], { LOGIN_THROTTLE_WINDOWS: "60,0,900" })).toThrow(
      /^configuration error: LOGIN_THROTTLE_WINDOWS values below 1 are rejected$/,
    );
    expect(load(["LOGIN_THROTTLE_WINDOWS"], { LOGIN_THROTTLE_WINDOWS: "5, 10" }).LOGIN_THROTTLE_WINDOWS).toEqual([
      5, 10,
    ]);
  });

  it("treats an empty value as absent", () => {
    expect(
      load(["ACCESS_TOKEN_EXPIRE_MINUTES"], { ACCESS_TOKEN_EXPIRE_MINUTES: "  " }).ACCESS_TOKEN_EXPIRE_MINUTES,
    ).toBe(30);
  });
});
