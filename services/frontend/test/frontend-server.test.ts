// The frontend's server (src/service.ts) on a built app of its own making: /healthz, the security headers on every
// answer, hashed assets cached for a year and the shell never, the app's routes answered with its shell, and /api
// (requests and WebSocket upgrades) passed to the gateway with the client's address in X-Forwarded-For. The gateway
// here is a bare HTTP server that records what reaches it.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createLogger } from "@sca/log";
import { WebSocket, WebSocketServer } from "ws";
import { startFrontend, type FrontendInstance } from "../src/service.ts";

const SHELL = '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head></html>';

let frontend: FrontendInstance;
let upstream: Server;
let dist: string;
const reached: IncomingMessage[] = [];

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), "sca-frontend-"));
  mkdirSync(join(dist, "assets"));
  writeFileSync(join(dist, "index.html"), SHELL);
  writeFileSync(join(dist, "assets", "index-abc123.js"), "console.log(1)");
  upstream = createServer((req, res) => {
    reached.push(req);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ path: req.url }));
  });
  const wss = new WebSocketServer({ server: upstream });
  wss.on("connection", (socket, req) => socket.send(JSON.stringify({ path: req.url })));
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  const { port } = upstream.address() as { port: number };
  frontend = await startFrontend({
    env: { FRONTEND_DIST_DIR: dist, GATEWAY_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: "ERROR" },
    listen: { port: 0, host: "127.0.0.1" },
  });
});

afterAll(async () => {
  await frontend.close();
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

describe("the frontend's server", () => {
  it("answers /healthz with ok", async () => {
    const res = await fetch(`${frontend.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("sends a CSP without inline scripts that forbids framing, on the shell and the assets", async () => {
    for (const path of ["/", "/assets/index-abc123.js", "/healthz"]) {
      const csp = (await fetch(`${frontend.url}${path}`)).headers.get("content-security-policy") ?? "";
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).not.toContain("unsafe-inline");
    }
  });

  it("caches hashed assets for a year, immutable, and revalidates the shell", async () => {
    const asset = await fetch(`${frontend.url}/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const shell = await fetch(`${frontend.url}/projects/0191f2c4-8d2a-7c3e-9f10-1234567890ab/scans/x`);
    expect(shell.status).toBe(200);
    expect(shell.headers.get("cache-control")).toBe("no-cache");
    expect(await shell.text()).toBe(SHELL);
  });

  it("answers 404 for a missing asset rather than the shell", async () => {
    expect((await fetch(`${frontend.url}/assets/index-missing.js`)).status).toBe(404);
  });

  it("passes /api to the gateway with its path and the client's address", async () => {
    const res = await fetch(`${frontend.url}/api/v1/projects?page=2`);
    expect(await res.json()).toEqual({ path: "/api/v1/projects?page=2" });
    expect(reached.at(-1)?.headers["x-forwarded-for"]).toBe("127.0.0.1");
  });

  it("keeps its connection to the gateway for the next request", async () => {
    await (await fetch(`${frontend.url}/api/v1/projects`)).text();
    await (await fetch(`${frontend.url}/api/v1/teams`)).text();
    const [first, second] = reached.slice(-2).map((req) => req.socket.remotePort);
    expect(second).toBe(first);
  });

  it("passes the scan WebSocket's upgrade to the gateway", async () => {
    const socket = new WebSocket(`${frontend.url.replace("http", "ws")}/api/ws/scans/abc`);
    const frame = await new Promise<string>((resolve, reject) => {
      socket.once("message", (data: Buffer) => resolve(data.toString("utf8")));
      socket.once("error", reject);
    });
    socket.close();
    expect(JSON.parse(frame)).toEqual({ path: "/api/ws/scans/abc" });
  });

  it("logs a request the gateway could not take with its path and cause, never its query string", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
        done();
      },
    });
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const { port } = closed.address() as { port: number };
    await new Promise((r) => closed.close(r));
    const orphan = await startFrontend({
      env: { FRONTEND_DIST_DIR: dist, GATEWAY_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: "ERROR" },
      listen: { port: 0, host: "127.0.0.1" },
      logger: createLogger("frontend", "ERROR", sink),
    });
    try {
      const res = await fetch(`${orphan.url}/api/v1/auth/oidc/callback?code=the-secret-code&state=s`);
      expect(res.status).toBeGreaterThanOrEqual(500);
      const messages = lines.map((l) => String((JSON.parse(l) as { msg: unknown }).msg));
      expect(messages).toContainEqual(expect.stringContaining("/api/v1/auth/oidc/callback"));
      expect(messages).toContainEqual(expect.stringContaining("ECONNREFUSED"));
      expect(lines.join("\n")).not.toContain("the-secret-code");
      expect(messages.join("\n")).not.toContain("%s");
    } finally {
      await orphan.close();
    }
  });
});
