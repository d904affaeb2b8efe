// The edge behaviours every request meets: /api prefix, trailing slash, request ids, problem documents for
// 404/405/400/413/415/422/500 in English, errors from services, CORS, demo read-only, liveness.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { connect } from "node:net";
import { Readable } from "node:stream";
import { ConnectError, Code } from "@connectrpc/connect";
import { currentRequestId } from "@sca/log";
import { ProblemError, toConnectError } from "@sca/problem";
import { z } from "zod";
import { offsetPagination } from "../src/api/pagination.ts";
import { defineRoute, type Route } from "../src/api/route.ts";
import { ALLOWED_ORIGIN, capturingLogger, problemOf, startTestGateway, UUID_V7, type TestGateway } from "./harness.ts";

const echoBody = z.object({ name: z.string().min(1), tags: z.array(z.string()).max(2).default([]) });

const testRoutes = (): Route[] => [
  defineRoute({
    method: "get",
    path: "/v1/test-serialised-page",
    summary: "test: a page of rows a service wrote out as JSON",
    tags: ["test"],
    request: { query: offsetPagination.query({ defaultSize: 2, maxSize: 10 }) },
    responses: {
      200: { description: "a page", schema: offsetPagination.envelope(z.object({ n: z.number() })), shaped: true },
    },
    handler: ({ query }) => ({
      status: 200,
      body: offsetPagination.serialisedPage(Buffer.from('[{"n":1},{"n":2}]'), 7, query),
    }),
  }),
  defineRoute({
    method: "post",
    path: "/v1/test-echo",
    summary: "test: echo",
    tags: ["test"],
    request: { query: z.object({ n: z.coerce.number().int().max(5).optional() }), body: echoBody },
    responses: {
      200: {
        description: "echo",
        schema: z.object({
          name: z.string(),
          tags: z.array(z.string()),
          n: z.number().nullable(),
          request_id: z.string(),
        }),
      },
    },
    handler: ({ body, query }) => ({
      status: 200,
      // The request id must survive the body parser's socket callbacks.
      body: { name: body.name, tags: body.tags, n: query.n ?? null, request_id: currentRequestId() ?? "" },
    }),
  }),
  defineRoute({
    method: "get",
    path: "/v1/test-things/{thing_id}",
    summary: "test: path parameter",
    tags: ["test"],
    request: { params: z.object({ thing_id: z.uuid() }) },
    responses: { 200: { description: "the id", schema: z.object({ id: z.string() }) } },
    handler: ({ params }) => ({ status: 200, body: { id: params.thing_id } }),
  }),
  defineRoute({
    method: "delete",
    path: "/v1/test-things/{thing_id}",
    summary: "test: second method on a path",
    tags: ["test"],
    responses: { 204: { description: "gone" } },
    handler: () => ({ status: 204 }),
  }),
  defineRoute({
    method: "post",
    path: "/v1/test-things:batch",
    summary: "test: a colon in a literal segment",
    tags: ["test"],
    responses: { 200: { description: "ok", schema: z.object({ batch: z.literal(true) }) } },
    handler: () => ({ status: 200, body: { batch: true } }),
  }),
  defineRoute({
    method: "get",
    path: "/v1/test-boom",
    summary: "test: a bug",
    tags: ["test"],
    responses: { 200: { description: "never", schema: z.object({}) } },
    handler: () => {
      throw new Error("database password is hunter2 at /srv/app/db.ts:12");
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/test-service-problem",
    summary: "test: a service's problem",
    tags: ["test"],
    responses: { 200: { description: "never", schema: z.object({}) } },
    handler: () => {
      throw toConnectError(
        new ProblemError({
          status: 409,
          code: "last_super_admin",
          detail: "The last super admin cannot be demoted.",
          extensions: { user_id: "u1" },
        }),
      );
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/test-service-down",
    summary: "test: a service's internal error",
    tags: ["test"],
    responses: { 200: { description: "never", schema: z.object({}) } },
    handler: () => {
      throw new ConnectError("pq: relation users does not exist", Code.Internal);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/test-leaky",
    summary: "test: fields outside the response schema",
    tags: ["test"],
    responses: { 200: { description: "a user", schema: z.object({ email: z.string() }) } },
    handler: () => {
      const row = { email: "a@example.test", password_hash: "scrypt$..." };
      return { status: 200, body: row };
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/test-streamed-deadline",
    summary: "test: the service-call deadline of a streamed answer",
    tags: ["test"],
    responses: { 200: { description: "the deadline", schema: z.string(), contentType: "text/plain", stream: true } },
    handler: ({ call }) => ({
      status: 200,
      stream: Readable.from([String(call.timeoutMs ?? "none")]),
    }),
  }),
  defineRoute({
    method: "get",
    path: "/v1/test-streamed-large",
    summary: "test: a streamed answer larger than the socket takes at once",
    tags: ["test"],
    responses: { 200: { description: "bytes", schema: z.string(), contentType: "text/plain", stream: true } },
    // Its last line: how many close listeners the response holds once every chunk went out.
    handler: ({ res }) => ({
      status: 200,
      stream: Readable.from(
        (function* () {
          for (let i = 0; i < 64; i++) yield "x".repeat(64 * 1024);
          yield `\n${res.listenerCount("close")}`;
        })(),
      ),
    }),
  }),
  defineRoute({
    method: "get",
    path: "/v1/test-unary-deadline",
    summary: "test: the service-call deadline of a plain answer",
    tags: ["test"],
    responses: { 200: { description: "the deadline", schema: z.object({ timeout_ms: z.number().nullable() }) } },
    handler: ({ call }) => ({ status: 200, body: { timeout_ms: call.timeoutMs ?? null } }),
  }),
];

let gw: TestGateway;
const logs = capturingLogger();

beforeAll(async () => {
  gw = await startTestGateway({ routes: testRoutes, logger: logs.logger });
});
afterAll(async () => {
  await gw.close();
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.origin}${path}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });

describe("service-call deadlines", () => {
  it("gives a streamed answer's calls an hour, and leaves a plain answer's to the client's 10 s", async () => {
    // A 10,000-component notice on a loaded node outlasted the 10 s and was cut mid-body (obligations.test.ts).
    const streamed = await fetch(`${gw.origin}/v1/test-streamed-deadline`);
    expect(await streamed.text()).toBe("3600000");
    const plain = await fetch(`${gw.origin}/v1/test-unary-deadline`);
    expect(await plain.json()).toEqual({ timeout_ms: null });
  });
});

describe("streamed answers", () => {
  it("waits for the socket to drain without piling up listeners", async () => {
    // 64 chunks of 64 KiB: each write overflows the response's buffer, so each waits for a drain.
    const body = await (await fetch(`${gw.origin}/v1/test-streamed-large`)).text();
    const [bytes, listeners] = body.split("\n");
    expect(bytes!.length).toBe(64 * 64 * 1024);
    // Express's and Node's own, not one per wait.
    expect(Number(listeners)).toBeLessThan(8);
  });
});

describe("keep-alive", () => {
  it("keeps an idle connection open longer than the proxies in front of it (60 s)", async () => {
    const res = await fetch(`${gw.origin}/api/health`);
    expect(res.headers.get("keep-alive")).toBe("timeout=65");
  });
});

describe("ETag", () => {
  it("is sent only where a route gives one (a version for If-Match), never a hash of the body", async () => {
    const res = await fetch(`${gw.origin}/api/v1/test-things/0190f0e0-0000-7000-8000-000000000001`);
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeNull();
  });
});

describe("paths", () => {
  it("serves the backend mounts with and without the /api prefix", async () => {
    for (const path of ["/health", "/api/health", "/healthz", "/api/healthz", "/api/openapi.json", "/openapi.json"]) {
      expect([path, (await fetch(`${gw.origin}${path}`)).status]).toEqual([path, 200]);
    }
  });

  it("treats a trailing slash as the same path", async () => {
    expect((await fetch(`${gw.origin}/api/health/`)).status).toBe(200);
    expect((await fetch(`${gw.origin}/health/`)).status).toBe(200);
    const res = await post("/api/v1/test-echo/?n=3", JSON.stringify({ name: "x" }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: "x", n: 3 });
  });

  it("does not strip a prefix that only starts like /api", async () => {
    expect((await fetch(`${gw.origin}/apihealth`)).status).toBe(404);
  });

  it("routes path templates, including a colon inside a segment", async () => {
    const id = "0191f2c4-8d2a-7c3e-9f10-1234567890ab";
    expect(await (await fetch(`${gw.origin}/api/v1/test-things/${id}`)).json()).toEqual({ id });
    expect((await fetch(`${gw.origin}/api/v1/test-things:batch`, { method: "POST" })).status).toBe(200);
  });

  it("answers HEAD for GET routes", async () => {
    const res = await fetch(`${gw.origin}/api/health`, { method: "HEAD" });
    expect(res.status).toBe(200);
  });

  it("sends a page a service wrote out whole, its length declared, and only its head for HEAD", async () => {
    const page = '{"items":[{"n":1},{"n":2}],"total":7,"limit":2,"offset":0}';
    const res = await fetch(`${gw.origin}/api/v1/test-serialised-page`);
    expect([res.status, res.headers.get("content-type"), res.headers.get("content-length")]).toEqual([
      200,
      "application/json; charset=utf-8",
      String(page.length),
    ]);
    expect(await res.text()).toBe(page);
    const head = await fetch(`${gw.origin}/api/v1/test-serialised-page`, { method: "HEAD" });
    expect([head.status, head.headers.get("content-length"), await head.text()]).toEqual([
      200,
      String(page.length),
      "",
    ]);
  });
});

describe("request ids", () => {
  it("echoes the caller's X-Request-ID", async () => {
    const res = await fetch(`${gw.origin}/api/health`, { headers: { "x-request-id": "ci-run-42.step:7" } });
    expect(res.headers.get("x-request-id")).toBe("ci-run-42.step:7");
  });

  it("generates a UUIDv7 when none is sent, or when the one sent is unusable", async () => {
    const none = (await fetch(`${gw.origin}/api/health`)).headers.get("x-request-id");
    expect(none).toMatch(UUID_V7);
    const tooLong = (
      await fetch(`${gw.origin}/api/health`, { headers: { "x-request-id": "x".repeat(200) } })
    ).headers.get("x-request-id");
    expect(tooLong).toMatch(UUID_V7);
  });

  it("keeps the request id through the body parser and on the request's log line", async () => {
    const res = await post("/api/v1/test-echo", JSON.stringify({ name: "ctx" }), { "x-request-id": "req-body-ctx" });
    expect(((await res.json()) as { request_id: string }).request_id).toBe("req-body-ctx");
    const line = logs.lines().find((l) => l.msg === "request" && l.request_id === "req-body-ctx");
    expect(line).toMatchObject({ method: "POST", path: "/v1/test-echo", route: "/v1/test-echo", status: 200 });
  });

  it("puts the request id on error answers too", async () => {
    const res = await fetch(`${gw.origin}/api/nowhere`, { headers: { "x-request-id": "lost-1" } });
    expect(res.headers.get("x-request-id")).toBe("lost-1");
  });
});

describe("problem documents", () => {
  it("404 for an unknown route, instance the canonical path, English whatever the language asked", async () => {
    const res = await fetch(`${gw.origin}/api/v1/nowhere/?secret=1`, {
      headers: { "accept-language": "de-DE,de;q=0.9" },
    });
    expect(res.status).toBe(404);
    expect(await problemOf(res)).toEqual({
      type: "https://portal.example.test/problems/not_found",
      title: "Not Found",
      status: 404,
      detail: "No resource at /v1/nowhere.",
      instance: "/v1/nowhere",
      code: "not_found",
    });
  });

  it("405 with Allow for a wrong method on a known path", async () => {
    const res = await fetch(`${gw.origin}/api/v1/test-things/0191f2c4-8d2a-7c3e-9f10-1234567890ab`, { method: "PUT" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, DELETE, HEAD, OPTIONS");
    expect(await problemOf(res)).toMatchObject({
      status: 405,
      title: "Method Not Allowed",
      instance: "/v1/test-things/0191f2c4-8d2a-7c3e-9f10-1234567890ab",
    });
    expect((await fetch(`${gw.origin}/api/openapi.json`, { method: "POST" })).status).toBe(405);
  });

  it("204 with Allow for a plain OPTIONS on a known path", async () => {
    const res = await fetch(`${gw.origin}/api/health`, { method: "OPTIONS" });
    expect(res.status).toBe(204);
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("400 for malformed JSON, saying so", async () => {
    const res = await post("/api/v1/test-echo", '{"name": "x",');
    expect(res.status).toBe(400);
    const doc = await problemOf(res);
    expect(doc).toMatchObject({ status: 400, title: "Bad Request", instance: "/v1/test-echo" });
    expect(doc.detail).toMatch(/^The request body is not valid JSON: /);
  });

  it("413 for a body over 1 MiB", async () => {
    const res = await post("/api/v1/test-echo", JSON.stringify({ name: "x".repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(await problemOf(res)).toMatchObject({
      status: 413,
      detail: "The request body exceeds the limit of 1048576 bytes.",
    });
  });

  it("415 for a body that is not JSON", async () => {
    const res = await fetch(`${gw.origin}/api/v1/test-echo`, {
      method: "POST",
      body: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    await problemOf(res);
  });

  it("422 listing every offending field of query, body and path", async () => {
    const res = await post("/api/v1/test-echo?n=9", JSON.stringify({ name: "", tags: ["a", "b", "c"] }), {
      "accept-language": "fr",
    });
    expect(res.status).toBe(422);
    const doc = await problemOf(res);
    expect(doc).toMatchObject({
      status: 422,
      title: "Unprocessable Content",
      type: "https://portal.example.test/problems/validation_error",
    });
    expect((doc.errors as { path: string }[]).map((e) => e.path).sort()).toEqual(["body.name", "body.tags", "query.n"]);
    expect(JSON.stringify(doc.errors)).toMatch(/Too (big|small)/);

    const missing = await problemOf(await fetch(`${gw.origin}/api/v1/test-echo`, { method: "POST" }));
    expect(missing.errors).toEqual([{ path: "body", message: expect.stringMatching(/expected object/) as unknown }]);

    const badId = await fetch(`${gw.origin}/api/v1/test-things/not-a-uuid`);
    expect(badId.status).toBe(422);
    expect(((await problemOf(badId)).errors as { path: string }[])[0]!.path).toBe("params.thing_id");
  });

  it("422 naming the field for text no service can store: NUL and unpaired surrogates, in body, query and keys", async () => {
    const nul = await post("/api/v1/test-echo", JSON.stringify({ name: "a\u0000b", tags: ["ok", "x\u0000"] }));
    expect(nul.status).toBe(422);
    expect((await problemOf(nul)).errors).toEqual([
      { path: "body.name", message: "must not contain the NUL character (U+0000)" },
      { path: "body.tags.1", message: "must not contain the NUL character (U+0000)" },
    ]);
    // A lone surrogate as JSON writes it (an escape): refused the same way, never silently replaced.
    const lone = await post("/api/v1/test-echo", '{"name":"a\\ud800b"}');
    expect(lone.status).toBe(422);
    expect((await problemOf(lone)).errors).toEqual([
      { path: "body.name", message: expect.stringMatching(/unpaired UTF-16 surrogate/) as unknown },
    ]);
    const key = await post("/api/v1/test-echo", '{"name":"x","bad\\u0000key":1}');
    expect(((await problemOf(key)).errors as { path: string }[])[0]!.path).toBe("body.bad\ufffdkey");
    const query = await post("/api/v1/test-echo?n=1%00", JSON.stringify({ name: "x" }));
    expect(query.status).toBe(422);
    expect((await problemOf(query)).errors).toEqual([
      { path: "query.n", message: "must not contain the NUL character (U+0000)" },
    ]);
    // A paired surrogate (an emoji) is ordinary text.
    expect((await post("/api/v1/test-echo", JSON.stringify({ name: "a\u{1f600}" }))).status).toBe(200);
  });

  it("500 without internals for a bug, logged with the request id and the cause", async () => {
    const res = await fetch(`${gw.origin}/api/v1/test-boom`, { headers: { "x-request-id": "boom-1" } });
    expect(res.status).toBe(500);
    const text = await res.text();
    // The same shape as every other problem: a type under /problems/ and its code.
    expect(JSON.parse(text)).toEqual({
      type: "https://portal.example.test/problems/internal_error",
      code: "internal_error",
      title: "Internal Server Error",
      status: 500,
      detail: "An unexpected error occurred.",
      instance: "/v1/test-boom",
    });
    expect(text).not.toMatch(/hunter2|db\.ts|at /);
    const logged = logs.lines().find((l) => l.msg === "request failed" && l.request_id === "boom-1");
    expect((logged?.err as { message: string }).message).toContain("hunter2");
  });

  it("renders a service's problem exactly, through fromConnectError", async () => {
    const res = await fetch(`${gw.origin}/api/v1/test-service-problem`);
    expect(res.status).toBe(409);
    expect(await problemOf(res)).toEqual({
      type: "https://portal.example.test/problems/last_super_admin",
      title: "Conflict",
      status: 409,
      detail: "The last super admin cannot be demoted.",
      instance: "/v1/test-service-problem",
      code: "last_super_admin",
      user_id: "u1",
    });
  });

  it("hides a service's internal error message", async () => {
    const res = await fetch(`${gw.origin}/api/v1/test-service-down`);
    expect(res.status).toBe(500);
    const doc = await problemOf(res);
    expect(doc.detail).toBe("An unexpected error occurred.");
    expect(JSON.stringify(doc)).not.toContain("relation");
  });

  it("sends only the fields a response schema declares", async () => {
    expect(await (await fetch(`${gw.origin}/api/v1/test-leaky`)).json()).toEqual({ email: "a@example.test" });
  });
});

/** Writes `raw` on a fresh connection and reads the answer until the server closes it. */
function rawExchange(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(gw.origin).port), "127.0.0.1", () => socket.write(raw));
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

function parseRaw(answer: string): { status: number; headers: string; doc: Record<string, unknown> } {
  const [head, body] = answer.split("\r\n\r\n", 2) as [string, string];
  return {
    status: Number(head.split(" ")[1]),
    headers: head.toLowerCase(),
    doc: JSON.parse(body) as Record<string, unknown>,
  };
}

describe("requests the HTTP parser refuses", () => {
  it("431 problem for a request line and headers over the limit, connection closed", async () => {
    const answer = parseRaw(await rawExchange(`GET /api/health?x=${"a".repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(answer.status).toBe(431);
    expect(answer.headers).toContain("content-type: application/problem+json");
    expect(answer.headers).toContain("connection: close");
    expect(answer.doc).toMatchObject({
      type: "https://portal.example.test/problems/request_header_fields_too_large",
      code: "request_header_fields_too_large",
      status: 431,
      instance: "/health",
    });
  });

  it("400 problem for malformed HTTP: a space in a header name, Content-Length with Transfer-Encoding", async () => {
    for (const raw of [
      "GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
      "POST /api/v1/test-echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ]) {
      const answer = parseRaw(await rawExchange(raw));
      expect(answer.status).toBe(400);
      expect(answer.headers).toContain("content-type: application/problem+json");
      expect(answer.doc).toMatchObject({ code: "malformed_request", status: 400, title: "Bad Request" });
    }
  });
});

describe("CORS", () => {
  it("allows a listed origin with credentials and exposes the request id", async () => {
    const res = await fetch(`${gw.origin}/api/health`, { headers: { origin: ALLOWED_ORIGIN } });
    expect(res.headers.get("access-control-allow-origin")).toBe(ALLOWED_ORIGIN);
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(res.headers.get("access-control-expose-headers")).toContain("X-Request-ID");
    expect(res.headers.get("vary")).toContain("Origin");
  });

  it("gives another origin no CORS headers", async () => {
    const res = await fetch(`${gw.origin}/api/health`, { headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("matches origins exactly (scheme, host and port)", async () => {
    for (const origin of [
      ALLOWED_ORIGIN.replace("http:", "https:"),
      `${ALLOWED_ORIGIN}:8080`,
      `${ALLOWED_ORIGIN}.evil.example`,
    ]) {
      const res = await fetch(`${gw.origin}/api/health`, { headers: { origin } });
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("answers a preflight from a listed origin", async () => {
    const res = await fetch(`${gw.origin}/api/v1/test-echo`, {
      method: "OPTIONS",
      headers: {
        origin: ALLOWED_ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, authorization",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(ALLOWED_ORIGIN);
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")).toBe("content-type, authorization");
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
  });

  it("refuses a preflight from another origin", async () => {
    const res = await fetch(`${gw.origin}/api/v1/test-echo`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    await problemOf(res);
  });
});

describe("/health", () => {
  it("reports liveness, the API version and the demo flags", async () => {
    expect(await (await fetch(`${gw.origin}/api/health`)).json()).toEqual({
      status: "ok",
      version: "2.2.0",
      demo_read_only: false,
      demo_sandbox_scans: false,
    });
    expect(await (await fetch(`${gw.origin}/api/healthz`)).json()).toEqual({ status: "ok" });
  });
});

describe("demo read-only", () => {
  let demo: TestGateway;
  beforeAll(async () => {
    demo = await startTestGateway({
      routes: testRoutes,
      env: { DEMO_READ_ONLY: "true", DEMO_ALLOW_SANDBOX_SCANS: "true" },
    });
  });
  afterAll(async () => {
    await demo.close();
  });

  it("refuses every non-auth mutation with a demo_read_only problem", async () => {
    for (const [method, path] of [
      ["POST", "/api/v1/test-echo"],
      ["DELETE", "/api/v1/test-things/x"],
      ["PUT", "/v1/anything"],
      ["PATCH", "/api/v1/projects/1"],
    ] as const) {
      const res = await fetch(`${demo.origin}${path}`, {
        method,
        body: "{}",
        headers: { "content-type": "application/json", origin: ALLOWED_ORIGIN },
      });
      expect([method, path, res.status]).toEqual([method, path, 403]);
      // Readable by the browser: CORS headers come first.
      expect(res.headers.get("access-control-allow-origin")).toBe(ALLOWED_ORIGIN);
      const doc = await problemOf(res);
      expect(doc.type).toMatch(/\/demo_read_only$/);
      expect(doc.code).toBe("demo_read_only");
    }
  });

  it("lets authentication routes and reads through", async () => {
    // They reach their routes: an empty login is a validation error, logout wants a bearer, and refresh asks
    // identity, which this gateway has none of (503).
    const expected = { "/api/auth/login": 422, "/auth/logout": 401, "/api/v1/auth/refresh": 503 };
    for (const [path, status] of Object.entries(expected)) {
      expect([path, (await fetch(`${demo.origin}${path}`, { method: "POST" })).status]).toEqual([path, status]);
    }
    expect((await fetch(`${demo.origin}/api/v1/test-things/0191f2c4-8d2a-7c3e-9f10-1234567890ab`)).status).toBe(200);
  });

  it("is reported by /health", async () => {
    expect(await (await fetch(`${demo.origin}/api/health`)).json()).toMatchObject({
      demo_read_only: true,
      demo_sandbox_scans: true,
    });
  });
});
