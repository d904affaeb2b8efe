// WebSocket upgrades: refused before the handshake (404 off /ws/ or without an endpoint, 403 for a foreign
// Origin), accepted for a registered endpoint at /ws/... and /api/ws/...; and the server's graceful close.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { WebSocket } from "ws";
import { z } from "zod";
import { defineRoute } from "../src/api/route.ts";
import type { WebSocketEndpoint } from "../src/ws/websocket-upgrade.ts";
import { ALLOWED_ORIGIN, startTestGateway, type TestGateway } from "./harness.ts";

// A test-only endpoint: greets with its path parameter, then echoes.
const echo: WebSocketEndpoint = {
  path: "/ws/test-echo/{name}",
  onConnection(socket, _req, params) {
    socket.send(JSON.stringify({ hello: params.name }));
    socket.on("message", (data: Buffer) => socket.send(data.toString()));
  },
};

interface Refusal {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends a raw upgrade request and reads the answer, as a browser's handshake would. */
function upgrade(port: number, path: string, headers: Record<string, string> = {}): Promise<Refusal | "switched"> {
  return new Promise((resolve, reject) => {
    const req = request({
      port,
      host: "127.0.0.1",
      path,
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        ...headers,
      },
    });
    req.on("upgrade", (_res, socket) => {
      socket.destroy();
      resolve("switched");
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ webSocketEndpoints: [echo] });
});
afterAll(async () => {
  await gw.close();
});

describe("WebSocket upgrades", () => {
  it("refuses paths outside /ws/ with 404 before the handshake", async () => {
    const answer = await upgrade(gw.server.port, "/api/health");
    expect(answer).toMatchObject({ status: 404, headers: { "content-type": "application/problem+json" } });
    expect(JSON.parse((answer as Refusal).body)).toMatchObject({ status: 404, instance: "/health" });
  });

  it("refuses /ws/ paths without an endpoint with 404", async () => {
    const answer = (await upgrade(gw.server.port, "/api/ws/scans/0191f2c4-8d2a-7c3e-9f10-1234567890ab", {
      origin: ALLOWED_ORIGIN,
    })) as Refusal;
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({
      status: 404,
      instance: "/ws/scans/0191f2c4-8d2a-7c3e-9f10-1234567890ab",
    });
  });

  it("refuses a foreign Origin with 403 before the handshake, and echoes the request id", async () => {
    const answer = (await upgrade(gw.server.port, "/api/ws/test-echo/ada", {
      origin: "https://evil.example",
      "x-request-id": "ws-1",
    })) as Refusal;
    expect(answer.status).toBe(403);
    expect(answer.headers["x-request-id"]).toBe("ws-1");
    expect(JSON.parse(answer.body)).toMatchObject({
      status: 403,
      code: "origin_rejected",
      type: "https://portal.example.test/problems/origin_rejected",
    });
  });

  it("accepts a listed Origin, and no Origin (not a browser), with and without the /api prefix", async () => {
    expect(await upgrade(gw.server.port, "/ws/test-echo/ada", { origin: ALLOWED_ORIGIN })).toBe("switched");
    expect(await upgrade(gw.server.port, "/api/ws/test-echo/ada/")).toBe("switched");
  });

  it("hands the connection to the endpoint with its path parameters", async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${gw.server.port}/api/ws/test-echo/grace`, { origin: ALLOWED_ORIGIN });
    const frames: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on("message", (data: Buffer) => {
        frames.push(data.toString());
        if (frames.length === 1) ws.send("ping-1");
        else resolve();
      });
      ws.on("error", reject);
    });
    expect(frames).toEqual([JSON.stringify({ hello: "grace" }), "ping-1"]);
    ws.close();
  });
});

describe("graceful close", () => {
  it("finishes in-flight requests, closes WebSockets 1011 internal, then stops accepting", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const local = await startTestGateway({
      webSocketEndpoints: [echo],
      routes: () => [
        defineRoute({
          method: "get",
          path: "/v1/test-slow",
          summary: "test: slow",
          tags: ["test"],
          responses: { 200: { description: "done", schema: z.object({ done: z.boolean() }) } },
          handler: async () => {
            await held;
            return { status: 200, body: { done: true } };
          },
        }),
      ],
    });
    const ws = new WebSocket(`ws://127.0.0.1:${local.server.port}/ws/test-echo/x`);
    await new Promise((r) => ws.once("message", r));
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.once("close", (code: number, reason: Buffer) => r({ code, reason: reason.toString() })),
    );

    const inFlight = fetch(`${local.origin}/api/v1/test-slow`);
    await new Promise((r) => setTimeout(r, 50));
    const closing = local.close();
    // The spec's table has no shutdown reason; 1011 internal is the one that misleads nobody (docs/gateway.md).
    expect(await closed).toEqual({ code: 1011, reason: "internal" });
    await expect(fetch(`${local.origin}/api/health`)).rejects.toThrow();
    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    // Drained, not forced: well within the 1 s grace the harness gives.
    const drained = Date.now();
    await closing;
    expect(Date.now() - drained).toBeLessThan(500);
  });
});
