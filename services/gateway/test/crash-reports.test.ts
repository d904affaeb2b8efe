// The web UI's crash reports through a real gateway, identity and admin: a signed-in caller's report stored with the
// request id and the caller, listed newest first for a super_admin only, the spec's body limits (422 past them),
// the per-caller rate limit (a low CRASH_REPORT_RATE_LIMIT here, so the test stays short), and no report text in any
// log line of admin or the gateway (their loggers here keep their lines in memory).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { closeTogether, fixturesOf, startService, uniqueName, type TestService } from "@sca/testkit";
import { capturingLogger, startTestGateway, type TestGateway } from "./harness.ts";
import { gatewayRequest, type GatewayRequest } from "./support/gateway-request.ts";

let identity: TestService;
let admin: TestService;
let gateway: TestGateway;
let request: GatewayRequest;
let root: string;
let people: Awaited<ReturnType<typeof fixturesOf<"identity">>>;
const adminLog = capturingLogger();
const gatewayLog = capturingLogger();

beforeAll(async () => {
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  admin = await startService("admin", {
    env: { BACKUP_AUTO_EVERY_HOURS: "0" },
    logger: adminLog.logger,
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { admin: admin.url! },
    env: { CRASH_REPORT_RATE_LIMIT: "3/minute" },
    logger: gatewayLog.logger,
  });
  request = gatewayRequest(gateway.origin);
  people = await fixturesOf("identity");
  root = await people.accessToken(await people.user(identity.orm, { superAdmin: true }));
}, 60_000);

afterAll(async () => {
  await closeTogether([gateway, admin, identity].filter(Boolean));
});

async function person() {
  const id = await people.user(identity.orm, { fullName: `P ${randomUUID()}` });
  return { id, token: await people.accessToken(id) };
}

const secret = `stack-secret-${randomUUID()}`;

describe("POST /v1/crash-reports", () => {
  it("stores the report with the request id and the caller, listed for a super_admin", async () => {
    const me = await person();
    const requestId = `crash-${randomUUID()}`;
    const sent = await request("POST", "/v1/crash-reports", {
      bearer: me.token,
      headers: { "x-request-id": requestId },
      body: {
        message: `TypeError: x is undefined ${secret}`,
        url: "https://portal.example.test/projects/1",
        stack: `TypeError\n    at render (${secret}.js:1:1)`,
        component_stack: "\n    in ProjectPage",
      },
    });
    expect(sent.status).toBe(202);
    const list = await request("GET", "/v1/admin/crash-reports?page_size=5", { bearer: root });
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ total: 1, page: 1, page_size: 5 });
    expect((list.json.items as unknown[])[0]).toMatchObject({
      id: sent.json.id,
      request_id: requestId,
      user_id: me.id,
      message: `TypeError: x is undefined ${secret}`,
      url: "https://portal.example.test/projects/1",
      stack: `TypeError\n    at render (${secret}.js:1:1)`,
      component_stack: "\n    in ProjectPage",
    });
    // admin logged the report by its id, and neither service logged its text.
    const lines = [...adminLog.lines(), ...gatewayLog.lines()];
    expect(adminLog.lines()).toEqual(
      expect.arrayContaining([expect.objectContaining({ crash_report_id: sent.json.id })]),
    );
    expect(JSON.stringify(lines).includes(secret)).toBe(false);
  });

  it("holds the spec's limits: message and url 1..2000 characters, required", async () => {
    const me = await person();
    const post = (body: unknown) => request("POST", "/v1/crash-reports", { bearer: me.token, body });
    expect((await post({ url: "https://x" })).status).toBe(422);
    expect((await post({ message: "m".repeat(2001), url: "https://x" })).status).toBe(422);
    const other = await person();
    const postOther = (body: unknown) => request("POST", "/v1/crash-reports", { bearer: other.token, body });
    expect((await postOther({ message: "m", url: "u".repeat(2001) })).status).toBe(422);
    expect((await postOther({ message: "m", url: "https://x", stack: "s".repeat(20_001) })).status).toBe(422);
    expect((await postOther({ message: "m".repeat(2000), url: "u".repeat(2000) })).status).toBe(202);
  });

  it("is rate limited per caller and needs a signed-in caller", async () => {
    const me = await person();
    const post = () => request("POST", "/v1/crash-reports", { bearer: me.token, body: { message: "m", url: "u" } });
    for (let i = 0; i < 3; i++) expect((await post()).status).toBe(202);
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe("rate_limited");
    // Another caller has a budget of its own.
    const other = await person();
    expect(
      (await request("POST", "/v1/crash-reports", { bearer: other.token, body: { message: "m", url: "u" } })).status,
    ).toBe(202);
    expect((await request("POST", "/v1/crash-reports", { body: { message: "m", url: "u" } })).status).toBe(401);
  });

  it("hides the list from anyone but a super_admin", async () => {
    const me = await person();
    expect((await request("GET", "/v1/admin/crash-reports", { bearer: me.token })).status).toBe(404);
  });
});
