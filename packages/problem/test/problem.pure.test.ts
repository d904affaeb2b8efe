import { describe, expect, it } from "@jest/globals";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { fromConnectError, ProblemError, toConnectError } from "@sca/problem";
import { Health } from "@sca/proto/grpc/health/v1/health_pb.ts";

const BASE = "https://portal.example.com";

describe("problem documents", () => {
  it("renders the standard members, the code, extensions and field violations", () => {
    const doc = new ProblemError({
      status: 409,
      code: "last-super-admin",
      detail: "The last super_admin cannot be demoted.",
      extensions: { status: 1, user_id: "u1" },
    }).toDocument(BASE, "/v1/admin/users/u1/role");
    expect(doc).toEqual({
      type: `${BASE}/problems/last-super-admin`,
      title: "Conflict",
      status: 409,
      detail: "The last super_admin cannot be demoted.",
      instance: "/v1/admin/users/u1/role",
      code: "last-super-admin",
      user_id: "u1",
    });
    const v = ProblemError.validation([{ path: "body.email", message: "Invalid email" }]).toDocument(
      BASE,
      "/auth/register",
    );
    expect(v).toMatchObject({
      status: 422,
      detail: "body.email: Invalid email",
      errors: [{ path: "body.email", message: "Invalid email" }],
    });
  });

  it("keeps a type URI the spec fixes, and gives a problem without a code its status's code", () => {
    expect(
      new ProblemError({ status: 409, typeUri: "urn:service:problem:last-oauth-link", detail: "x" }).toDocument(
        BASE,
        "/",
      ).type,
    ).toBe("urn:service:problem:last-oauth-link");
    expect(new ProblemError({ status: 400, detail: "x" }).toDocument(BASE, "/")).toMatchObject({
      type: `${BASE}/problems/bad_request`,
      code: "bad_request",
    });
    expect(new ProblemError({ status: 500, detail: "x" }).toDocument(BASE, "/")).toMatchObject({
      type: `${BASE}/problems/internal_error`,
      code: "internal_error",
    });
  });

  it("crosses a service boundary unchanged inside a Connect error", () => {
    const original = new ProblemError({
      status: 412,
      code: "version_mismatch",
      detail: "If-Match does not match.",
      extensions: { current_version: 3 },
      violations: [{ path: "header.if-match", message: "stale" }],
    });
    const wire = ConnectError.from(toConnectError(original));
    expect(wire.code).toBe(Code.FailedPrecondition);
    const back = fromConnectError(wire);
    expect(back.toDocument(BASE, "/x")).toEqual(original.toDocument(BASE, "/x"));
  });

  it("carries the problem's headers through a Connect call, names spelt as the service spelt them", async () => {
    const thrown = [
      new ProblemError({
        status: 429,
        code: "sign_in_throttled",
        detail: "Too many failed sign-ins.",
        extensions: { retry_after_seconds: 7 },
        headers: { "Retry-After": "7" },
      }),
      new ProblemError({
        status: 401,
        code: "unauthorized",
        detail: "The bearer credential is invalid.",
        headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
      }),
    ];
    for (const original of thrown) {
      // A real client and server speaking the Connect protocol in memory: the error goes through encoding.
      const transport = createRouterTransport((router) =>
        router.service(Health, {
          check: () => {
            throw toConnectError(original);
          },
        }),
      );
      const failed = await createClient(Health, transport)
        .check({ service: "" })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(failed).toBeInstanceOf(ConnectError);
      const back = fromConnectError(failed as ConnectError);
      expect(back.init.headers).toEqual(original.init.headers);
      expect(back.toDocument(BASE, "/x")).toEqual(original.toDocument(BASE, "/x"));
    }
  });

  it("restores no headers when the problem had none, or when they cannot be read", () => {
    expect(fromConnectError(toConnectError(ProblemError.notFound())).init.headers).toBeUndefined();
    const garbled = toConnectError(ProblemError.notFound());
    garbled.metadata.set("sca-problem-headers-bin", "not base64 of json!");
    expect(fromConnectError(garbled).init.headers).toBeUndefined();
    const notFromAProblem = new ConnectError("gone", Code.NotFound, {
      "sca-problem-headers-bin": "eyJSZXRyeS1BZnRlciI6IjEifQ",
    });
    expect(fromConnectError(notFromAProblem).init.headers).toBeUndefined();
  });

  it("never passes an internal error's message to the caller", () => {
    const p = fromConnectError(new ConnectError("pg: relation users does not exist at 10.0.0.3", Code.Internal));
    expect(p.status).toBe(500);
    expect(p.init.detail).not.toContain("pg:");
    expect(fromConnectError(new ConnectError("down", Code.Unavailable)).status).toBe(503);
    expect(fromConnectError(new ConnectError("no such user", Code.NotFound)).status).toBe(404);
  });
});
