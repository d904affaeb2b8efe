// The caller guards beside the Caller type, and the one client address of a call.
import { describe, expect, it } from "@jest/globals";
import { createContextValues, createHandlerContext, type HandlerContext } from "@connectrpc/connect";
import { ProblemError } from "@sca/problem";
import { Health } from "@sca/proto/grpc/health/v1/health_pb.ts";
import {
  ANONYMOUS,
  callerKey,
  clientAddressFrom,
  isPerson,
  isSuperAdmin,
  requireCaller,
  requirePerson,
  requireSuperAdmin,
  type Caller,
} from "@sca/rpc";

const person: Caller = {
  ...ANONYMOUS,
  kind: "user",
  user_id: "0190f0e0-0000-7000-8000-000000000001",
  email: "dev@example.com",
};
const superAdmin: Caller = { ...person, is_superuser: true };
// An API key issued by a super_admin carries its issuer's flag; it is still no person.
const apiKey: Caller = { ...superAdmin, kind: "api_key", api_key_id: "0190f0e0-0000-7000-8000-00000000000a" };

function contextOf(caller: Caller): HandlerContext {
  return createHandlerContext({
    service: Health,
    method: Health.method.check,
    protocolName: "connect",
    requestMethod: "POST",
    url: "http://127.0.0.1/",
    contextValues: createContextValues().set(callerKey, caller),
  });
}

/** The status and detail of the problem `guard` throws, or "passed". */
function outcome(guard: () => unknown): { status: number; detail: string } | "passed" {
  try {
    guard();
    return "passed";
  } catch (err) {
    if (!(err instanceof ProblemError)) throw err;
    return { status: err.status, detail: err.message };
  }
}

describe("caller guards", () => {
  it("tell people and super_admins apart from API keys", () => {
    expect([person, superAdmin, apiKey, ANONYMOUS].map(isPerson)).toEqual([true, true, false, false]);
    expect([person, superAdmin, apiKey, ANONYMOUS].map(isSuperAdmin)).toEqual([false, true, false, false]);
  });

  it("requireCaller: 401 for nobody", () => {
    expect(outcome(() => requireCaller(contextOf(ANONYMOUS)))).toMatchObject({ status: 401 });
    expect(requireCaller(contextOf(apiKey))).toEqual(apiKey);
  });

  it("requirePerson: 401 for nobody, 403 for an API key unless the handler names its own refusal", () => {
    expect(outcome(() => requirePerson(contextOf(ANONYMOUS)))).toMatchObject({ status: 401 });
    expect(outcome(() => requirePerson(contextOf(apiKey)))).toEqual({
      status: 403,
      detail: "This action is for signed-in people, not API keys.",
    });
    const own = () => ProblemError.unauthorized("A second factor belongs to a signed-in person, not an API key.");
    expect(outcome(() => requirePerson(contextOf(apiKey), own))).toEqual({
      status: 401,
      detail: "A second factor belongs to a signed-in person, not an API key.",
    });
    expect(requirePerson(contextOf(person)).user_id).toBe(person.user_id);
  });

  it("requireSuperAdmin: 401 for nobody, 404 for anyone else (the admin surface is not shown), or the handler's refusal", () => {
    expect(outcome(() => requireSuperAdmin(contextOf(ANONYMOUS)))).toMatchObject({ status: 401 });
    expect(outcome(() => requireSuperAdmin(contextOf(person)))).toMatchObject({ status: 404 });
    expect(outcome(() => requireSuperAdmin(contextOf(apiKey)))).toMatchObject({ status: 404 });
    expect(outcome(() => requireSuperAdmin(contextOf(person), () => ProblemError.forbidden()))).toMatchObject({
      status: 403,
    });
    expect(requireSuperAdmin(contextOf(superAdmin))).toEqual(superAdmin);
  });
});

describe("client address", () => {
  const fields = (a: { ip: string; userAgent: string }) => ({ ip: a.ip, userAgent: a.userAgent });

  it("comes from the address the edge put in the request, or from the caller it vouched for", () => {
    expect(fields(clientAddressFrom({ ip: "198.51.100.2", userAgent: "ua" }))).toEqual({
      ip: "198.51.100.2",
      userAgent: "ua",
    });
    expect(fields(clientAddressFrom({ ...person, ip: "203.0.113.7", user_agent: "curl/8" }))).toEqual({
      ip: "203.0.113.7",
      userAgent: "curl/8",
    });
    expect(clientAddressFrom({ ...person, ip: "203.0.113.7", user_agent: "curl/8" }).$typeName).toBe(
      "sca.common.v1.ClientAddress",
    );
  });

  it("is empty where the edge did not know", () => {
    expect(fields(clientAddressFrom(undefined))).toEqual({ ip: "", userAgent: "" });
    expect(fields(clientAddressFrom(ANONYMOUS))).toEqual({ ip: "", userAgent: "" });
  });
});
