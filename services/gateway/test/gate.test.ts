// The build gate through a real gateway, identity, projects, policy and scanner-runner: the verdict on a project
// whose findings fixture holds Log4Shell (critical, EPSS 0.97), flipping as the finding is triaged through the VEX
// PATCH and as team and organization gate policies change; the policy in effect with its sources; malicious
// components; who may do what; problem+json for bad input; every change audited through the outbox.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOPICS } from "@sca/kafka";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { EventReader, fixturesOf } from "@sca/testkit";
import { startGateStack, type GateStack } from "./gate-stack.ts";

let s: GateStack;
let audit: EventReader;
let team: { id: string; organizationId: string };
let root: { id: string; token: string };
let teamAdmin: { id: string; token: string };
let developer: { id: string; token: string };
let viewer: { id: string; token: string };
let stranger: { id: string; token: string };
let projectId: string;

type Result = {
  passed: boolean;
  outcome: string;
  reasons: {
    code: string;
    message: string;
    count: number;
    findings: { vulnerability_id: string }[];
    components: { name: string }[];
  }[];
  [k: string]: unknown;
};

const gate = async (bearer = viewer.token) => {
  const r = await s.request("GET", `/v1/projects/${projectId}/gate-result`, { bearer });
  expect(r.status).toBe(200);
  return r.json as Result;
};
const codes = (r: Result) => r.reasons.map((x) => x.code);

beforeAll(async () => {
  s = await startGateStack();
  audit = await EventReader.start(s.policy.kafka!, TOPICS.auditEvents);
  team = await s.team();
  const other = await s.team();
  root = await s.person([], true);
  teamAdmin = await s.person([[team.id, "team_admin"]]);
  developer = await s.person([[team.id, "developer"]]);
  viewer = await s.person([[team.id, "viewer"]]);
  stranger = await s.person([[other.id, "team_admin"]]);
  projectId = await s.projectWithFindings(team.id, root.token);
}, 180_000);

afterAll(async () => {
  await audit?.stop();
  await s?.close();
});

describe("GET /v1/projects/{id}/gate-result", () => {
  it("fails on the open critical finding, naming it and its component, with every field of the result", async () => {
    const r = await gate();
    expect(r).toMatchObject({
      project_id: projectId,
      passed: false,
      outcome: "fail",
      critical_count: 1,
      reachable_critical_only: false,
      reachability_analysed: false,
      forbidden_license_count: 0,
      epss_threshold: null,
      epss_gate_count: 0,
      epss_outcome: "off",
      malicious_component_count: 0,
      malicious_gate_enforced: true,
      triaged_finding_count: 0,
      approval_required_statuses: [],
    });
    expect(typeof r.scan_id).toBe("string");
    expect(r.open_finding_count).toBe(5);
    expect(codes(r)).toEqual(["critical_vulnerabilities"]);
    const [reason] = r.reasons;
    expect(reason!.findings).toEqual([
      expect.objectContaining({ vulnerability_id: "CVE-2021-44228", component_name: "log4j-core", epss_score: 0.97 }),
    ]);
    expect(reason!.message).toContain("CVE-2021-44228");
  });

  it("is hidden from outsiders (404) and refuses a malformed id as problem+json", async () => {
    const hidden = await s.request("GET", `/v1/projects/${projectId}/gate-result`, { bearer: stranger.token });
    expect(hidden.status).toBe(404);
    expect(hidden.contentType).toMatch(/application\/problem\+json/);
    const bad = await s.request("GET", `/v1/projects/not-a-uuid/gate-result`, { bearer: viewer.token });
    expect([404, 422]).toContain(bad.status);
    expect(bad.contentType).toMatch(/application\/problem\+json/);
    expect((await s.request("GET", `/v1/projects/${projectId}/gate-result`)).status).toBe(401);
  });

  it("a project without a succeeded scan fails as no_scan", async () => {
    const created = await s.request("POST", "/v1/projects", {
      bearer: root.token,
      body: { name: "Empty", slug: `empty-${projectId.slice(0, 8)}`, team_id: team.id },
    });
    const r = await s.request("GET", `/v1/projects/${created.json.id as string}/gate-result`, { bearer: viewer.token });
    expect(r.json).toMatchObject({ passed: false, outcome: "no_scan", scan_id: null });
  });
});

describe("gate policies and the gate flipping", () => {
  it("the team's EPSS threshold adds a failing check; the policy in effect says where each value came from", async () => {
    const put = await s.request("PUT", `/v1/gate-policies/teams/${team.id}`, {
      bearer: teamAdmin.token,
      // Statuses this file's triage never reaches (finding-confirmation.test.ts covers the second person).
      body: {
        name: "Strict",
        epss_threshold: 0.5,
        approval_required_statuses: ["resolved_with_pedigree", "false_positive"],
      },
    });
    expect(put.status).toBe(201);
    expect(put.json).toMatchObject({
      team_id: team.id,
      organization_id: team.organizationId,
      name: "Strict",
      epss_threshold: 0.5,
      approval_required_statuses: ["false_positive", "resolved_with_pedigree"],
      malicious_blocks: null,
      set_fields: ["approval_required_statuses", "epss_threshold"],
      version: 1,
    });
    const again = await s.request("PUT", `/v1/gate-policies/teams/${team.id}`, {
      bearer: teamAdmin.token,
      body: {
        name: "Strict",
        epss_threshold: 0.5,
        approval_required_statuses: ["false_positive", "resolved_with_pedigree"],
      },
    });
    expect(again.status).toBe(200);
    expect(again.json.version).toBe(1);

    const effective = await s.request("GET", `/v1/gate-policies/projects/${projectId}`, { bearer: viewer.token });
    expect(effective.status).toBe(200);
    expect(effective.json).toMatchObject({
      id: put.json.id,
      project_id: projectId,
      team_id: team.id,
      epss_threshold: 0.5,
      malicious_blocks: true,
      reachable_critical_only: false,
      approval_required_statuses: ["false_positive", "resolved_with_pedigree"],
      sources: {
        approval_required_statuses: "team",
        epss_threshold: "team",
        malicious_blocks: "default",
        reachable_critical_only: "default",
      },
      sources_legacy:
        "approval_required_statuses=team,epss_threshold=team,malicious_blocks=default,reachable_critical_only=default",
    });
    expect(typeof effective.json.epss_data_available).toBe("boolean");
    expect(typeof effective.json.epss_scored_cves).toBe("number");
    expect(typeof effective.json.epss_refresh_enabled).toBe("boolean");
    expect(effective.json).toHaveProperty("epss_last_synced_at");
    // Consistent with the deployment's EPSS availability route.
    const availability = await s.request("GET", "/v1/gate-policies/epss-availability", { bearer: viewer.token });
    expect(effective.json.epss_data_available).toBe(availability.json.available);
    expect(effective.json.epss_scored_cves).toBe(availability.json.scored_cves);
    expect((await s.request("GET", `/v1/gate-policies/projects/${projectId}`, { bearer: stranger.token })).status).toBe(
      404,
    );

    const r = await gate();
    expect(r).toMatchObject({ epss_threshold: 0.5, epss_gate_count: 1, epss_outcome: "fail" });
    expect(codes(r)).toEqual(["critical_vulnerabilities", "epss_threshold"]);
    expect(r.reasons[1]!.findings.map((f) => f.vulnerability_id)).toEqual(["CVE-2021-44228"]);
  });

  it("triaging the finding not_affected through the VEX PATCH passes the gate; reopening fails it again", async () => {
    const list = await s.request("GET", `/v1/projects/${projectId}/vulnerabilities?severity=critical`, {
      bearer: viewer.token,
    });
    const finding = (list.json.items as { id: string; version: number }[])[0]!;
    const patch = (status: string, version: number, extra: Record<string, unknown> = {}) =>
      s.request("PATCH", `/v1/vulnerability_findings/${finding.id}/status`, {
        bearer: developer.token,
        headers: { "if-match": `"${version}"` },
        body: { status, ...extra },
      });
    const closed = await patch("not_affected", finding.version, { justification: "code_not_reachable" });
    expect(closed.status).toBe(200);
    const passed = await gate();
    expect(passed).toMatchObject({
      passed: true,
      outcome: "pass",
      reasons: [],
      critical_count: 0,
      epss_gate_count: 0,
      epss_outcome: "pass",
      triaged_finding_count: 1,
      open_finding_count: 4,
    });
    const reopened = await patch("in_triage", closed.json.version as number);
    expect(reopened.status).toBe(200);
    expect(codes(await gate())).toEqual(["critical_vulnerabilities", "epss_threshold"]);
    const resolved = await patch("resolved", reopened.json.version as number);
    expect(resolved.status).toBe(200);
    expect((await gate()).passed).toBe(true);
  });

  it("the organization default applies once the team's policy is deleted (lodash's 0.02 at 0.015)", async () => {
    expect(
      (await s.request("PUT", `/v1/gate-policies/org/${team.organizationId}`, { bearer: teamAdmin.token, body: {} }))
        .status,
    ).toBe(404);
    const org = await s.request("PUT", `/v1/gate-policies/org/${team.organizationId}`, {
      bearer: root.token,
      body: { epss_threshold: 0.015 },
    });
    expect(org.status).toBe(201);
    expect(org.json).toMatchObject({ team_id: null, organization_id: team.organizationId, epss_threshold: 0.015 });
    expect((await gate()).passed).toBe(true); // the team's 0.5 still wins
    expect((await s.request("DELETE", `/v1/gate-policies/teams/${team.id}`, { bearer: developer.token })).status).toBe(
      403,
    );
    expect((await s.request("DELETE", `/v1/gate-policies/teams/${team.id}`, { bearer: teamAdmin.token })).status).toBe(
      204,
    );
    expect((await s.request("GET", `/v1/gate-policies/teams/${team.id}`, { bearer: viewer.token })).status).toBe(404);
    const r = await gate();
    expect(r).toMatchObject({ passed: false, epss_threshold: 0.015, epss_gate_count: 1 });
    expect(r.reasons[0]!.findings.map((f) => f.vulnerability_id)).toEqual(["CVE-2021-23337"]);
    const effective = await s.request("GET", `/v1/gate-policies/projects/${projectId}`, { bearer: viewer.token });
    expect(effective.json).toMatchObject({
      id: org.json.id,
      team_id: null,
      sources: { epss_threshold: "organization" },
    });
    // A team's explicit null turns the organization's threshold off for the team.
    const off = await s.request("PUT", `/v1/gate-policies/teams/${team.id}`, {
      bearer: teamAdmin.token,
      body: { epss_threshold: null },
    });
    expect(off.json).toMatchObject({ epss_threshold: null, set_fields: ["epss_threshold"] });
    expect(await gate()).toMatchObject({ passed: true, epss_outcome: "off", epss_threshold: null });
  });

  it("a flagged malicious component fails the gate unless the policy's malicious_blocks is false", async () => {
    await (
      await fixturesOf("projects")
    ).write(
      s.projects.orm,
      `update inventory_components set malicious_state = 'flagged' where project_id = ? and name = 'left-pad'`,
      [projectId],
    );
    const r = await gate();
    expect(r).toMatchObject({ passed: false, malicious_component_count: 1, malicious_gate_enforced: true });
    expect(r.reasons[0]).toMatchObject({
      code: "malicious_components",
      components: [expect.objectContaining({ name: "left-pad" })],
    });
    await s.request("PUT", `/v1/gate-policies/teams/${team.id}`, {
      bearer: teamAdmin.token,
      body: { epss_threshold: null, malicious_blocks: false },
    });
    expect(await gate()).toMatchObject({ passed: true, malicious_gate_enforced: false, malicious_component_count: 0 });
  });

  it("who may change policies, and problem+json for bad bodies", async () => {
    const put = (bearer: string, body: unknown) =>
      s.request("PUT", `/v1/gate-policies/teams/${team.id}`, { bearer, body });
    expect((await put(developer.token, {})).status).toBe(403);
    expect((await put(stranger.token, {})).status).toBe(404);
    for (const body of [
      { epss_threshold: 1.5 },
      { epss_threshold: "high" },
      { approval_required_statuses: ["bogus"] },
      { malicious_blocks: "yes" },
      { unknown_field: true },
    ]) {
      const r = await put(teamAdmin.token, body);
      expect(r.status).toBe(422);
      expect(r.contentType).toMatch(/application\/problem\+json/);
    }
  });

  it("audits every change through the outbox", async () => {
    const events = await audit.waitFor(AuditEventSchema, (e) => e.action.startsWith("gate_policy."), 5);
    const actions = events.map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(["gate_policy.created", "gate_policy.updated", "gate_policy.deleted"]),
    );
    const deleted = events.find((e) => e.action === "gate_policy.deleted")!;
    expect(deleted).toMatchObject({
      source: "policy",
      targetTable: "gate_policies",
      teamId: team.id,
      outcome: "success",
    });
    expect(deleted.actor?.userId).toBe(teamAdmin.id);
  });
});

describe("the policy of the project's team now", () => {
  // Policy reads the policies of the team it last saw the project in before its one projects call; the facts come
  // back with the project's team now, and a project found elsewhere is judged again by that team's policy.
  it("a project that moved to another team is judged by the new team's policy on the next read", async () => {
    const from = await s.team();
    const to = await s.team();
    const moved = await s.projectWithFindings(from.id, root.token);
    const read = async () => {
      const r = await s.request("GET", `/v1/projects/${moved}/gate-result`, { bearer: root.token });
      expect(r.status).toBe(200);
      return r.json as Result;
    };
    for (const [teamId, epss_threshold] of [
      [from.id, null],
      [to.id, 0.5],
    ] as const) {
      const put = await s.request("PUT", `/v1/gate-policies/teams/${teamId}`, {
        bearer: root.token,
        body: { epss_threshold },
      });
      expect(put.status).toBe(201);
    }
    expect(await read()).toMatchObject({ epss_threshold: null, epss_outcome: "off" });
    await (
      await fixturesOf("projects")
    ).write(s.projects.orm, `update projects set team_id = ?, organization_id = ? where id = ?`, [
      to.id,
      to.organizationId,
      moved,
    ]);
    const r = await read();
    expect(r).toMatchObject({ epss_threshold: 0.5, epss_gate_count: 1, epss_outcome: "fail" });
    expect((r.sources as Record<string, string>).epss_threshold).toBe("team");
    expect(codes(r)).toEqual(["critical_vulnerabilities", "epss_threshold"]);
  });
});
