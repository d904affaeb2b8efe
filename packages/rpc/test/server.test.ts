import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code, ConnectError, createContextValues } from "@connectrpc/connect";
import { createLogger } from "@sca/log";
import { fromConnectError } from "@sca/problem";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@sca/proto/grpc/health/v1/health_pb.ts";
import {
  ANONYMOUS,
  callerTokenKey,
  createServiceClient,
  HealthRegistry,
  signCallerToken,
  startRpcServer,
  verifyCallerToken,
  type Caller,
  type RpcServer,
} from "@sca/rpc";
import { TEST_SECRET } from "@sca/testkit";

const caller: Caller = {
  ...ANONYMOUS,
  kind: "user",
  user_id: "0190f0e0-0000-7000-8000-000000000001",
  email: "a@example.com",
};

describe("rpc server", () => {
  let server: RpcServer;
  let ready = false;
  const health = new HealthRegistry().add("readiness", () => Promise.resolve(ready));

  beforeAll(async () => {
    server = await startRpcServer({
      service: "test",
      port: 0,
      logger: createLogger("test", "ERROR"),
      secretKey: TEST_SECRET,
      health,
      readMaxBytes: 1024 * 1024,
      routes: () => undefined,
    });
  });
  afterAll(() => server.close(100));

  const client = () => createServiceClient(Health, `http://127.0.0.1:${server.port}`);

  it("answers liveness, and readiness from its check", async () => {
    expect((await client().check({ service: "" })).status).toBe(Status.SERVING);
    expect((await client().check({ service: "readiness" })).status).toBe(Status.NOT_SERVING);
    ready = true;
    expect((await client().check({ service: "readiness" })).status).toBe(Status.SERVING);
  });

  it("answers NOT_FOUND for an unknown health service name", async () => {
    await expect(client().check({ service: "nope" })).rejects.toMatchObject({ code: Code.NotFound });
  });

  it("accepts a valid caller token and refuses a forged one", async () => {
    const token = await signCallerToken(caller, TEST_SECRET);
    const ok = await client().check(
      { service: "" },
      { contextValues: createContextValues().set(callerTokenKey, token) },
    );
    expect(ok.status).toBe(Status.SERVING);
    const forged = await signCallerToken(caller, "another-secret-key-that-is-also-32-chars");
    const err = await client()
      .check({ service: "" }, { contextValues: createContextValues().set(callerTokenKey, forged) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unauthenticated);
  });

  it("refuses a message holding text no service can store, naming the field, before any handler", async () => {
    // (An unpaired surrogate never arrives: protobuf's UTF-8 encoding replaces it on the caller's side, which is
    // why the gateway refuses it before any call.)
    const err = await client()
      .check({ service: "a\u0000b" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    const problem = fromConnectError(err as ConnectError);
    expect(problem.status).toBe(422);
    expect(problem.init.violations).toEqual([
      { path: "service", message: "must not contain the NUL character (U+0000)" },
    ]);
  });

  it("reports NOT_SERVING everywhere once shutting down", async () => {
    health.markShuttingDown();
    expect((await client().check({ service: "" })).status).toBe(Status.NOT_SERVING);
  });
});

describe("caller token", () => {
  it("round-trips the caller", async () => {
    expect(await verifyCallerToken(await signCallerToken(caller, TEST_SECRET), TEST_SECRET)).toEqual(caller);
  });

  it("is a standard HS256 JWT: jose verifies ours with the derived key, its type, issuer, audience and lifetime", async () => {
    const { createHmac } = await import("node:crypto");
    const { jwtVerify } = await import("jose");
    const key = createHmac("sha256", TEST_SECRET).update("sca/internal-caller-token/v1").digest();
    const { payload, protectedHeader } = await jwtVerify(await signCallerToken(caller, TEST_SECRET), key, {
      issuer: "sca-gateway",
      audience: "sca-services",
      typ: "sca-caller+jwt",
      algorithms: ["HS256"],
    });
    expect(protectedHeader).toEqual({ alg: "HS256", typ: "sca-caller+jwt" });
    expect(payload.caller).toEqual(caller);
    expect(payload.exp! - payload.iat!).toBe(60);
    await expect(
      jwtVerify(await signCallerToken(caller, "another-secret-key-that-is-at-least-32-chars"), key),
    ).rejects.toThrow();
  });

  it("is refused when tampered with", async () => {
    const token = await signCallerToken(caller, TEST_SECRET);
    const [h, p, s] = token.split(".");
    const payload = JSON.parse(Buffer.from(p!, "base64url").toString()) as { caller: Caller };
    payload.caller.is_superuser = true;
    const tampered = [h, Buffer.from(JSON.stringify(payload)).toString("base64url"), s].join(".");
    await expect(verifyCallerToken(tampered, TEST_SECRET)).rejects.toThrow();
  });

  it("is not an access token: a token signed directly with SECRET_KEY is refused", async () => {
    const { SignJWT } = await import("jose");
    const direct = await new SignJWT({ caller })
      .setProtectedHeader({ alg: "HS256", typ: "sca-caller+jwt" })
      .setIssuer("sca-gateway")
      .setAudience("sca-services")
      .setExpirationTime("1m")
      .sign(new TextEncoder().encode(TEST_SECRET));
    await expect(verifyCallerToken(direct, TEST_SECRET)).rejects.toThrow();
  });

  it("is refused with another type, algorithm, issuer or audience, expired, not yet valid, critical or garbled", async () => {
    const { createHmac } = await import("node:crypto");
    const { SignJWT } = await import("jose");
    const key = createHmac("sha256", TEST_SECRET).update("sca/internal-caller-token/v1").digest();
    const now = Math.floor(Date.now() / 1000);
    const sign = (
      header: Record<string, unknown>,
      claims: { iss?: string; aud?: string; exp?: number; nbf?: number },
    ) => {
      const jwt = new SignJWT({ caller })
        .setProtectedHeader({ alg: "HS256", typ: "sca-caller+jwt", ...header })
        .setIssuer(claims.iss ?? "sca-gateway")
        .setAudience(claims.aud ?? "sca-services")
        .setExpirationTime(claims.exp ?? now + 60);
      if (claims.nbf !== undefined) jwt.setNotBefore(claims.nbf);
      return jwt.sign(key);
    };
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const rawToken = (header: object) => {
      const body = `${b64(header)}.${b64({ caller, iss: "sca-gateway", aud: "sca-services", exp: now + 60 })}`;
      return `${body}.${createHmac("sha256", key).update(body).digest("base64url")}`;
    };
    expect(await verifyCallerToken(await sign({}, {}), TEST_SECRET)).toEqual(caller);
    expect(await verifyCallerToken(rawToken({ alg: "HS256", typ: "sca-caller+jwt" }), TEST_SECRET)).toEqual(caller);
    const refused = [
      await sign({ typ: "JWT" }, {}),
      await sign({}, { iss: "sca-identity" }),
      await sign({}, { aud: "somebody-else" }),
      await sign({}, { exp: now - 1 }),
      await sign({}, { nbf: now + 60 }),
      rawToken({ alg: "HS256", typ: "sca-caller+jwt", crit: ["x"], x: 1 }),
      await new SignJWT({ caller })
        .setProtectedHeader({ alg: "HS512", typ: "sca-caller+jwt" })
        .setIssuer("sca-gateway")
        .setAudience("sca-services")
        .setExpirationTime(now + 60)
        .sign(key),
      `${Buffer.from(JSON.stringify({ alg: "none", typ: "sca-caller+jwt" })).toString("base64url")}.${Buffer.from(
        JSON.stringify({ caller, iss: "sca-gateway", aud: "sca-services", exp: now + 60 }),
      ).toString("base64url")}.`,
      "a.b.c",
      "not a token",
      "",
    ];
    for (const token of refused) await expect(verifyCallerToken(token, TEST_SECRET)).rejects.toThrow();
  });
});

describe("client of a service that is not running", () => {
  it("reports it unavailable (503 at the edge), not as an internal error", async () => {
    const client = createServiceClient(Health, "http://127.0.0.1:9");
    await expect(client.check({ service: "" })).rejects.toMatchObject({ code: Code.Unavailable });
  });
});
