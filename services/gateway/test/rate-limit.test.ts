// ctx.rateLimit as route middleware: 429 problem with Retry-After (fixed or the window's remainder), counted
// per subject in the real Redis, and requests pass (logged) while Redis is unreachable.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Request } from "express";
import { z } from "zod";
import { defineRoute, type Route } from "../src/api/route.ts";
import type { GatewayContext } from "../src/context.ts";
import { capturingLogger, problemOf, startTestGateway, type TestGateway } from "./harness.ts";

const bySubjectHeader = (req: Request) => req.get("x-test-subject") ?? req.ip ?? "";

const limitedRoutes = (ctx: GatewayContext): Route[] => [
  defineRoute({
    method: "post",
    path: "/v1/test-login",
    summary: "test: like login, 3 per minute per subject, Retry-After 60",
    tags: ["test"],
    middleware: [
      ctx.rateLimit({ name: "test-login", limit: 3, windowSeconds: 60, key: bySubjectHeader, retryAfter: 60 }),
    ],
    request: { body: z.object({ email: z.string() }) },
    responses: { 204: { description: "ok" } },
    handler: () => ({ status: 204 }),
  }),
  defineRoute({
    method: "get",
    path: "/v1/test-search",
    summary: "test: 2 per 30 s, Retry-After is what is left of the window",
    tags: ["test"],
    middleware: [ctx.rateLimit({ name: "test-search", limit: 2, windowSeconds: 30, key: bySubjectHeader })],
    responses: { 200: { description: "ok", schema: z.object({ ok: z.boolean() }) } },
    handler: () => ({ status: 200, body: { ok: true } }),
  }),
];

describe("rate limits", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ routes: limitedRoutes });
  });
  afterAll(async () => {
    await gw.close();
  });

  const login = (subject: string) =>
    fetch(`${gw.origin}/api/v1/test-login`, {
      method: "POST",
      body: JSON.stringify({ email: "a@b.c" }),
      headers: { "content-type": "application/json", "x-test-subject": subject },
    });

  it("answers 429 with the fixed Retry-After past the limit", async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await login("10.1.1.1")).status);
    expect(statuses).toEqual([204, 204, 204, 429]);
    const res = await login("10.1.1.1");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(await problemOf(res)).toMatchObject({
      status: 429,
      title: "Too Many Requests",
      code: "rate_limited",
      instance: "/v1/test-login",
    });
  });

  it("counts each subject on its own", async () => {
    expect((await login("10.2.2.2")).status).toBe(204);
  });

  it("counts before the body is read, so a refused request is never parsed", async () => {
    for (let i = 0; i < 3; i++) await login("10.3.3.3");
    const res = await fetch(`${gw.origin}/api/v1/test-login`, {
      method: "POST",
      body: "{not json",
      headers: { "content-type": "application/json", "x-test-subject": "10.3.3.3" },
    });
    expect(res.status).toBe(429);
  });

  it("gives the rest of the window as Retry-After by default", async () => {
    const search = () => fetch(`${gw.origin}/api/v1/test-search`, { headers: { "x-test-subject": "u-1" } });
    await search();
    await search();
    const res = await search();
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(30);
  });

  it("refuses an impossible rule when the route is declared", () => {
    expect(() => gw.ctx.rateLimit({ name: "x", limit: 0, windowSeconds: 60, key: () => "" })).toThrow(RangeError);
  });
});

describe("rate limits while Redis is unreachable", () => {
  let gw: TestGateway;
  const logs = capturingLogger();
  beforeAll(async () => {
    gw = await startTestGateway({ routes: limitedRoutes, redisUrl: "redis://127.0.0.1:1", logger: logs.logger });
  });
  afterAll(async () => {
    await gw.close();
    // ioredis leaves a 2 s timer waiting for the close of a socket that never opened; let it fire.
    await new Promise((r) => setTimeout(r, 2_100));
  });

  it("lets requests through and logs that the limit was not checked", async () => {
    const res = await fetch(`${gw.origin}/api/v1/test-search`, { headers: { "x-request-id": "no-redis-1" } });
    expect(res.status).toBe(200);
    expect(
      logs.lines().find((l) => l.request_id === "no-redis-1" && l.msg === "rate limit not checked: redis unavailable"),
    ).toBeDefined();
  });
});
