// The keys the gateway alone reads (src/config.ts), as the spec states them.
import { describe, expect, it } from "@jest/globals";
import { loadConfig, pickKeys } from "@sca/config";
import { gatewayKeys } from "../src/config.ts";

const load = <K extends keyof typeof gatewayKeys>(names: K[], env: Record<string, string>) =>
  loadConfig(pickKeys(gatewayKeys, names), env);

describe("the gateway's configuration keys", () => {
  it("applies the spec's defaults", () => {
    expect(load(["WEBSOCKET_AUTH_TIMEOUT_SECONDS", "METRICS_ENABLED"], {})).toEqual({
      WEBSOCKET_AUTH_TIMEOUT_SECONDS: 1,
      METRICS_ENABLED: false,
    });
  });

  it("rejects a wildcard in CORS_ALLOWED_ORIGINS and anything that is not an origin", () => {
    expect(() => load(["CORS_ALLOWED_ORIGINS"], { CORS_ALLOWED_ORIGINS: "https://a.example, *" })).toThrow(
      /CORS_ALLOWED_ORIGINS must not contain \*/,
    );
    expect(() => load(["CORS_ALLOWED_ORIGINS"], { CORS_ALLOWED_ORIGINS: "https://a.example/path" })).toThrow(
      /CORS_ALLOWED_ORIGINS/,
    );
    expect(
      load(["CORS_ALLOWED_ORIGINS"], { CORS_ALLOWED_ORIGINS: "https://a.example,http://127.0.0.1:8080" })
        .CORS_ALLOWED_ORIGINS,
    ).toEqual(["https://a.example", "http://127.0.0.1:8080"]);
  });

  it("parses strict booleans and rejects garbage", () => {
    expect(load(["DEMO_READ_ONLY"], { DEMO_READ_ONLY: "yes" }).DEMO_READ_ONLY).toBe(true);
    expect(load(["DEMO_READ_ONLY"], { DEMO_READ_ONLY: "0" }).DEMO_READ_ONLY).toBe(false);
    expect(() => load(["DEMO_READ_ONLY"], { DEMO_READ_ONLY: "maybe" })).toThrow(/DEMO_READ_ONLY must be true or false/);
  });

  it("parses rates such as 5/minute", () => {
    expect(load(["REGISTRATION_RATE_LIMIT"], {}).REGISTRATION_RATE_LIMIT).toEqual({ limit: 5, windowSeconds: 60 });
    expect(load(["REFRESH_RATE_LIMIT"], { REFRESH_RATE_LIMIT: "100/hour" }).REFRESH_RATE_LIMIT).toEqual({
      limit: 100,
      windowSeconds: 3600,
    });
    expect(() => load(["REFRESH_RATE_LIMIT"], { REFRESH_RATE_LIMIT: "lots" })).toThrow(
      /REFRESH_RATE_LIMIT must look like 5\/minute/,
    );
  });
});
