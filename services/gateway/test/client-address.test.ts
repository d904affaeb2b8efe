// The client address that per-IP limits key on: the socket's, unless TRUST_PROXY_HOPS says an ingress is in front.
import { afterEach, describe, expect, it } from "@jest/globals";
import { z } from "zod";
import { defineRoute } from "../src/api/route.ts";
import { startTestGateway, type TestGateway } from "./harness.ts";

const echoIp = () => [
  defineRoute({
    method: "get",
    path: "/v1/test-client-address",
    summary: "test: the client address the gateway sees",
    tags: ["test"],
    responses: { 200: { description: "ok", schema: z.object({ ip: z.string() }) } },
    handler: ({ req }) => ({ status: 200, body: { ip: req.ip ?? "" } }),
  }),
];

describe("client address", () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
  });

  const seen = async () => {
    const res = await fetch(`${gw!.origin}/api/v1/test-client-address`, {
      headers: { "x-forwarded-for": "198.51.100.7, 203.0.113.5" },
    });
    return ((await res.json()) as { ip: string }).ip;
  };

  it("ignores X-Forwarded-For by default, so a client cannot pick its own rate-limit bucket", async () => {
    gw = await startTestGateway({ routes: echoIp });
    expect(await seen()).toMatch(/127\.0\.0\.1$/);
  });

  it("takes the address the trusted ingress saw when TRUST_PROXY_HOPS=1", async () => {
    gw = await startTestGateway({ routes: echoIp, env: { TRUST_PROXY_HOPS: "1" } });
    expect(await seen()).toBe("203.0.113.5");
  });
});
