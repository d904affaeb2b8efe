// License policies through a real gateway, identity, policy and admin (one topic prefix, as in a deployment): the
// team and organization-default upserts with their defaults and merged strategy, the policy in force (team, else the
// enabled organization default, else 404 for the catalog), disabling and deleting reverting, who may do what,
// validation, the list, and every change audited through the outbox into admin's log and announced as
// LicensePolicyChanged.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOPICS } from "@sca/kafka";
import { LicensePolicyChangedSchema } from "@sca/proto/sca/events/v1/policy_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import {
  closeTogether,
  callAs,
  EventReader,
  fixturesOf,
  startService,
  uniqueName,
  type TestService,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

interface Reply {
  status: number;
  json: Record<string, unknown>;
}

let identity: TestService;
let policy: TestService;
let admin: TestService;
let gateway: TestGateway;
let events: EventReader;
let organizationId: string;
let team: string;
let otherTeam: string;
let root: { id: string; token: string };
let teamAdmin: { id: string; token: string };
let developer: { id: string; token: string };
let viewer: { id: string; token: string };
let stranger: { id: string; token: string };

async function request(method: string, path: string, bearer: string, body?: unknown): Promise<Reply> {
  const res = await fetch(`${gateway.origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const teamPath = (id: string) => `/v1/license-policies/teams/${id}`;
const orgPath = () => `/v1/license-policies/org/${organizationId}`;

beforeAll(async () => {
  const KAFKA_TOPIC_PREFIX = `${uniqueName("license_policies")}.`;
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  policy = await startService("policy", { env: { KAFKA_TOPIC_PREFIX, IDENTITY_RPC_URL: identity.url! } });
  admin = await startService("admin", { env: { KAFKA_TOPIC_PREFIX } });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { policy: policy.url!, admin: admin.url! },
  });
  events = await EventReader.start(policy.kafka!, TOPICS.domainEvents);
  const directory = identity.client(DirectoryService);
  const rootCall = await callAs.superAdmin(randomUUID());
  const newTeam = async () => {
    const slug = `team-${randomUUID().slice(0, 8)}`;
    const { team } = await directory.createTeam({ name: `Team ${slug}`, slug }, rootCall);
    return team!;
  };
  const first = await newTeam();
  team = first.id;
  organizationId = first.organizationId!;
  otherTeam = (await newTeam()).id;
  const fixtures = await fixturesOf("identity");
  const person = async (role: string | null, superAdmin = false) => {
    const id = await fixtures.user(identity.orm, { superAdmin });
    if (role) await directory.addTeamMember({ teamId: team, userId: id, role }, rootCall);
    return { id, token: await fixtures.accessToken(id) };
  };
  root = await person(null, true);
  teamAdmin = await person("team_admin");
  developer = await person("developer");
  viewer = await person("viewer");
  stranger = await person(null);
}, 120_000);

afterAll(async () => {
  await events?.stop();
  await closeTogether([gateway, admin, policy, identity]);
}, 120_000);

describe("license policies", () => {
  it("answer 404 for a team while only the catalog applies", async () => {
    const r = await request("GET", teamPath(team), viewer.token);
    expect(r.status).toBe(404);
    expect(r.json.detail).toMatch(/catalog/);
  });

  it("an organization default: super_admin only, its defaults, and in force for the organization's teams", async () => {
    expect((await request("PUT", orgPath(), teamAdmin.token, {})).status).toBe(404);
    const put = await request("PUT", orgPath(), root.token, {
      name: "Org default",
      category_overrides: { "GPL-3.0-only": "forbidden" },
    });
    expect(put.status).toBe(201);
    expect(put.json).toMatchObject({
      organization_id: organizationId,
      team_id: null,
      name: "Org default",
      category_overrides: { "GPL-3.0-only": "forbidden" },
      license_exceptions: [],
      unknown_license_category: "conditional",
      compound_operator_strategy: { AND: "most_restrictive", OR: "least_restrictive", WITH: "most_restrictive" },
      enabled: true,
      version: 1,
    });
    expect((await request("GET", orgPath(), viewer.token)).status).toBe(404);
    expect((await request("GET", orgPath(), root.token)).json).toMatchObject({ id: put.json.id });
    const inForce = await request("GET", teamPath(team), viewer.token);
    expect(inForce.status).toBe(200);
    expect(inForce.json).toMatchObject({ id: put.json.id, scope: "organization" });
  });

  it("a team's policy: upserted by its team_admin, a partial strategy merged onto the defaults, idempotent", async () => {
    const body = {
      name: "Team policy",
      category_overrides: { MIT: "conditional", "LicenseRef-acme": "allowed" },
      license_exceptions: [
        { spdx_id: "GPL-2.0-only", reason: "vendored, reviewed", expires_at: "2030-01-01T00:00:00Z" },
        { spdx_id: "AGPL-3.0-only", reason: "one tool", component_purl: "pkg:npm/some-tool" },
      ],
      unknown_license_category: "forbidden",
      compound_operator_strategy: { WITH: "least_restrictive" },
    };
    const created = await request("PUT", teamPath(team), teamAdmin.token, body);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      team_id: team,
      organization_id: organizationId,
      category_overrides: body.category_overrides,
      license_exceptions: [
        {
          spdx_id: "GPL-2.0-only",
          reason: "vendored, reviewed",
          expires_at: "2030-01-01T00:00:00.000Z",
          component_purl: null,
        },
        { spdx_id: "AGPL-3.0-only", reason: "one tool", expires_at: null, component_purl: "pkg:npm/some-tool" },
      ],
      unknown_license_category: "forbidden",
      compound_operator_strategy: { AND: "most_restrictive", OR: "least_restrictive", WITH: "least_restrictive" },
      enabled: true,
      version: 1,
    });
    const again = await request("PUT", teamPath(team), teamAdmin.token, body);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ id: created.json.id, version: 1 });
    const inForce = await request("GET", teamPath(team), viewer.token);
    expect(inForce.json).toMatchObject({ id: created.json.id, scope: "team", name: "Team policy" });
    // A PUT replaces: what it leaves out takes its default again.
    const replaced = await request("PUT", teamPath(team), teamAdmin.token, { name: "Team policy" });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({
      id: created.json.id,
      version: 2,
      category_overrides: {},
      license_exceptions: [],
      unknown_license_category: "conditional",
      compound_operator_strategy: { AND: "most_restrictive", OR: "least_restrictive", WITH: "most_restrictive" },
    });
  });

  it("refuses a developer (403), a stranger and an unknown team (404), and bad input (422)", async () => {
    expect((await request("PUT", teamPath(team), developer.token, {})).status).toBe(403);
    expect((await request("DELETE", teamPath(team), developer.token)).status).toBe(403);
    expect((await request("PUT", teamPath(team), stranger.token, {})).status).toBe(404);
    expect((await request("GET", teamPath(team), stranger.token)).status).toBe(404);
    expect((await request("PUT", teamPath(randomUUID()), root.token, {})).status).toBe(404);
    const unknownId = await request("PUT", teamPath(team), teamAdmin.token, {
      category_overrides: { "Not-A-License": "allowed" },
      license_exceptions: [{ spdx_id: "MIT", reason: " " }],
    });
    expect(unknownId.status).toBe(422);
    expect((unknownId.json.errors as { path: string }[]).map((e) => e.path).sort()).toEqual([
      "category_overrides.Not-A-License",
      "license_exceptions.0.reason",
    ]);
    const badCategory = await request("PUT", teamPath(team), teamAdmin.token, {
      category_overrides: { MIT: "blocked" },
      compound_operator_strategy: { XOR: "most_restrictive" },
    });
    expect(badCategory.status).toBe(422);
    // A thousand bad entries: a 422 naming the first 50, not an answer too large to send (found by the fuzzing gate).
    const thousand = await request("PUT", orgPath(), root.token, {
      license_exceptions: Array.from({ length: 1000 }, () => ({ spdx_id: "0", reason: "0" })),
    });
    expect(thousand.status).toBe(422);
    expect(thousand.json.errors).toHaveLength(50);
    const missingReason = await request("PUT", teamPath(team), teamAdmin.token, {
      license_exceptions: [{ spdx_id: "MIT" }],
    });
    expect(missingReason.status).toBe(422);
  });

  it("disabling reverts to the organization default, then to the catalog; deleting reverts to the default", async () => {
    await request("PUT", teamPath(team), teamAdmin.token, { name: "Team policy", enabled: false });
    expect((await request("GET", teamPath(team), viewer.token)).json).toMatchObject({ scope: "organization" });
    await request("PUT", orgPath(), root.token, { name: "Org default", enabled: false });
    expect((await request("GET", teamPath(team), viewer.token)).status).toBe(404);
    await request("PUT", orgPath(), root.token, { name: "Org default" });
    await request("PUT", teamPath(team), teamAdmin.token, { name: "Team policy" });
    expect((await request("GET", teamPath(team), viewer.token)).json).toMatchObject({ scope: "team" });
    expect((await request("DELETE", teamPath(team), teamAdmin.token)).status).toBe(204);
    expect((await request("GET", teamPath(team), viewer.token)).json).toMatchObject({ scope: "organization" });
    expect((await request("DELETE", teamPath(team), teamAdmin.token)).status).toBe(204);
  });

  it("lists the policies a caller may see", async () => {
    const own = await request("PUT", teamPath(team), teamAdmin.token, { name: "Listed" });
    const other = await request("PUT", teamPath(otherTeam), root.token, { name: "Other team" });
    const ids = (r: Reply) => (r.json.items as { id: string }[]).map((p) => p.id);
    const byViewer = await request("GET", "/v1/license-policies", viewer.token);
    expect(byViewer.status).toBe(200);
    expect(byViewer.json).toMatchObject({ total: 2, page: 1, page_size: 50 });
    expect((byViewer.json.items as { team_id: string | null }[])[0]!.team_id).toBeNull();
    expect(ids(byViewer)).toContain(own.json.id);
    expect(ids(byViewer)).not.toContain(other.json.id);
    expect((await request("GET", "/v1/license-policies", stranger.token)).json).toMatchObject({ items: [], total: 0 });
    const byRoot = await request("GET", "/v1/license-policies?page_size=2&page=2", root.token);
    expect(byRoot.json).toMatchObject({ total: 3, page: 2, page_size: 2 });
    expect(ids(byRoot)).toHaveLength(1);
  });

  it("concurrent first upserts of one team create one policy", async () => {
    const slugTeam = otherTeam;
    await request("DELETE", teamPath(slugTeam), root.token);
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => request("PUT", teamPath(slugTeam), root.token, { name: `race ${i}` })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.json.id)).size).toBe(1);
  });

  it("audits every change into admin's log, and announces it as LicensePolicyChanged", async () => {
    const deadline = Date.now() + 30_000;
    let actions: string[] = [];
    while (Date.now() < deadline) {
      const page = await request("GET", `/v1/admin/audit?target_table=license_policies&page_size=200`, root.token);
      const entries = page.json.items as { source: string; action: string; team_id: string }[];
      actions = entries.filter((e) => e.source === "policy").map((e) => e.action);
      if (actions.includes("license_policy.deleted") && actions.length >= 8) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(new Set(actions)).toEqual(
      new Set(["license_policy.created", "license_policy.updated", "license_policy.deleted"]),
    );
    const teamEvents = await events.waitFor(LicensePolicyChangedSchema, (e) => e.teamId === team);
    expect(teamEvents[0]).toMatchObject({ organizationId, teamId: team });
    await events.waitFor(LicensePolicyChangedSchema, (e) => e.teamId === "" && e.organizationId === organizationId);
  }, 40_000);
});
