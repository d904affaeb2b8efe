// Degraded readiness end to end (docs/gateway.md, "/health/ready"): a real identity and notifier behind a real
// gateway; once the notifier stops, its routes answer a 503 problem while identity's keep answering and
// /health/ready stays 200 listing notifier as degraded, so Kubernetes keeps the gateway's pods in its Service.
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { startNotifierStack, type NotifierStack } from "./notifier-stack.ts";

let stack: NotifierStack;

beforeAll(async () => {
  stack = await startNotifierStack();
}, 90_000);

afterAll(async () => {
  await stack?.close();
}, 120_000);

it("a stopped service's routes answer 503 problems, the others and readiness stay up", async () => {
  const team = await stack.team();
  const lead = await stack.person(team.id, "team_admin");
  const rules = `/v1/notification-rules/teams/${team.id}`;

  expect((await stack.request("GET", rules, { bearer: lead })).status).toBe(200);
  const before = await stack.request("GET", "/health/ready");
  expect(before.status).toBe(200);
  expect(before.json).toMatchObject({
    status: "ready",
    services: { identity: "serving", notifier: "serving" },
    degraded: [],
  });

  await stack.notifier.close();

  const down = await stack.request("GET", rules, { bearer: lead });
  expect(down.status).toBe(503);
  expect(down.contentType).toMatch(/^application\/problem\+json/);
  expect(down.json).toEqual({
    type: "https://portal.example.test/problems/service_unavailable",
    title: "Service Unavailable",
    status: 503,
    code: "service_unavailable",
    detail: "A backend service is unavailable; try again shortly.",
    instance: rules,
  });
  // identity's own routes (and authentication, which every route needs) keep working.
  expect((await stack.request("GET", "/v1/api-keys", { bearer: lead })).status).toBe(200);

  const after = await stack.request("GET", "/health/ready");
  expect(after.status).toBe(200);
  expect(after.json).toMatchObject({
    status: "ready",
    services: { identity: "serving", notifier: "unreachable" },
    degraded: ["notifier"],
  });
});
