// approval_required_statuses enforced on finding triage, through a real gateway, identity, projects and policy: a
// move into a status the team's gate policy names waits for a second person (202, pending_status_change) and the gate
// keeps failing; the same person confirming is refused, an API key confirming is refused, a different developer's
// confirmation applies it and the gate flips; a decline drops it; a VEX import records such a status as pending too;
// every step audited through the outbox; deleting the policy lets one person close a finding again.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOPICS } from "@sca/kafka";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { EventReader } from "@sca/testkit";
import { startGateStack, type GateStack } from "./gate-stack.ts";

let s: GateStack;
let audit: EventReader;
let team: { id: string; organizationId: string };
let teamAdmin: { id: string; token: string };
let developer: { id: string; token: string };
let reviewer: { id: string; token: string };
let viewer: { id: string; token: string };
let projectId: string;
let finding: { id: string; purl: string };

type Finding = {
  id: string;
  status: string;
  version: number;
  pending_status_change: null | { status: string; justification: string | null; requested_by: string | null };
};

const gate = async () => {
  const r = await s.request("GET", `/v1/projects/${projectId}/gate-result`, { bearer: viewer.token });
  expect(r.status).toBe(200);
  return r.json as { passed: boolean; critical_count: number; approval_required_statuses: string[] };
};
const current = async () => {
  const r = await s.request("GET", `/v1/vulnerability_findings/${finding.id}`, { bearer: viewer.token });
  expect(r.status).toBe(200);
  return r.json as Finding;
};
const patch = (bearer: string, version: number, body: Record<string, unknown>) =>
  s.request("PATCH", `/v1/vulnerability_findings/${finding.id}/status`, {
    bearer,
    headers: { "if-match": `"${version}"` },
    body,
  });
const act = (action: "confirm" | "decline", bearer: string, version: number | null) =>
  s.request("POST", `/v1/vulnerability_findings/${finding.id}/status/${action}`, {
    bearer,
    headers: version === null ? {} : { "if-match": `"${version}"` },
  });

/** Waits until projects holds the team policy's statuses (policy's GatePolicyChanged, through Kafka). */
async function projectsKnow(statuses: string[] | null): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const rows = await s.projects.orm.em
      .fork()
      .getConnection()
      .execute<{ statuses: string[] | null }[]>(`select statuses from approval_required_statuses where scope_id = ?`, [
        team.id,
      ]);
    if (rows.length > 0 && JSON.stringify(rows[0]!.statuses) === JSON.stringify(statuses)) return;
    if (Date.now() > deadline) throw new Error(`projects never heard of ${JSON.stringify(statuses)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function importVex(statement: Record<string, unknown>) {
  const doc = {
    "@context": "https://openvex.dev/ns/v0.2.0",
    "@id": `https://example.com/vex/${Date.now()}`,
    author: "Security team",
    timestamp: new Date().toISOString(),
    version: 1,
    statements: [statement],
  };
  const form = new FormData();
  form.append("file", new Blob([JSON.stringify(doc)], { type: "application/json" }), "doc.vex.json");
  const res = await fetch(`${s.gateway.origin}/v1/projects/${projectId}/vex/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${teamAdmin.token}` },
    body: form,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  s = await startGateStack();
  audit = await EventReader.start(s.projects.kafka!, TOPICS.auditEvents);
  team = await s.team();
  const root = await s.person([], true);
  teamAdmin = await s.person([[team.id, "team_admin"]]);
  developer = await s.person([[team.id, "developer"]]);
  reviewer = await s.person([[team.id, "developer"]]);
  viewer = await s.person([[team.id, "viewer"]]);
  projectId = await s.projectWithFindings(team.id, root.token);
  const list = await s.request("GET", `/v1/projects/${projectId}/vulnerabilities?severity=critical`, {
    bearer: viewer.token,
  });
  finding = (list.json.items as { id: string; purl: string }[])[0]!;
  const put = await s.request("PUT", `/v1/gate-policies/teams/${team.id}`, {
    bearer: teamAdmin.token,
    body: { approval_required_statuses: ["not_affected", "resolved"] },
  });
  expect(put.status).toBe(201);
  await projectsKnow(["not_affected", "resolved"]);
}, 180_000);

afterAll(async () => {
  await audit?.stop();
  await s?.close();
});

describe("approval_required_statuses on finding triage", () => {
  it("one person alone cannot close the finding: the change waits and the gate keeps failing", async () => {
    const before = await current();
    expect(before).toMatchObject({ status: "in_triage", pending_status_change: null });
    const asked = await patch(developer.token, before.version, {
      status: "not_affected",
      justification: "code_not_reachable",
    });
    expect(asked.status).toBe(202);
    expect(asked.headers!.get("etag")).toBe(`"${before.version + 1}"`);
    expect(asked.json).toMatchObject({
      status: "in_triage",
      version: before.version + 1,
      pending_status_change: {
        status: "not_affected",
        justification: "code_not_reachable",
        requested_by: developer.id,
      },
    });
    // Asking again for the same change changes nothing.
    const again = await patch(developer.token, before.version + 1, {
      status: "not_affected",
      justification: "code_not_reachable",
    });
    expect(again.status).toBe(202);
    expect(again.json.version).toBe(before.version + 1);
    expect(await gate()).toMatchObject({
      passed: false,
      critical_count: 1,
      approval_required_statuses: ["not_affected", "resolved"],
    });
    // What waits for a second person is listed by the pending_confirmation filter.
    const waiting = await s.request("GET", `/v1/projects/${projectId}/vulnerabilities?pending_confirmation=true`, {
      bearer: reviewer.token,
    });
    expect((waiting.json.items as { id: string }[]).map((f) => f.id)).toEqual([finding.id]);
    const rest = await s.request("GET", `/v1/projects/${projectId}/vulnerabilities?pending_confirmation=false`, {
      bearer: reviewer.token,
    });
    expect(rest.json.total).toBe(4);
  });

  it("the same person confirming is refused; a viewer, a stale version or no If-Match too", async () => {
    const f = await current();
    const self = await act("confirm", developer.token, f.version);
    expect(self.status).toBe(403);
    expect(self.contentType).toMatch(/application\/problem\+json/);
    expect(self.json).toMatchObject({ code: "second_person_required" });
    expect((await act("confirm", viewer.token, f.version)).status).toBe(403);
    const stale = await act("confirm", reviewer.token, f.version - 1);
    expect(stale.status).toBe(412);
    expect(stale.json.current_version).toBe(f.version);
    expect((await act("confirm", reviewer.token, null)).status).toBe(428);
    expect(await current()).toMatchObject({ status: "in_triage", version: f.version });
    expect((await gate()).passed).toBe(false);
  });

  it("a second person's confirmation applies the change and the gate flips", async () => {
    const f = await current();
    const confirmed = await act("confirm", reviewer.token, f.version);
    expect(confirmed.status).toBe(200);
    expect(confirmed.json).toMatchObject({
      status: "not_affected",
      justification: "code_not_reachable",
      version: f.version + 1,
      pending_status_change: null,
      status_updated_by: reviewer.id,
    });
    expect(await gate()).toMatchObject({ passed: true, critical_count: 0 });
    // Nothing waits any more.
    const nothing = await act("confirm", teamAdmin.token, f.version + 1);
    expect(nothing.status).toBe(409);
    expect(nothing.json).toMatchObject({ code: "no_pending_status_change" });
  });

  it("a status the policy does not name applies at once; a declined change never does", async () => {
    const f = await current();
    const reopened = await patch(developer.token, f.version, { status: "in_triage" });
    expect(reopened.status).toBe(200);
    expect(reopened.json).toMatchObject({ status: "in_triage", pending_status_change: null });
    expect((await gate()).passed).toBe(false);
    const asked = await patch(developer.token, reopened.json.version as number, { status: "resolved" });
    expect(asked.status).toBe(202);
    const declined = await act("decline", developer.token, asked.json.version as number);
    expect(declined.status).toBe(200);
    expect(declined.json).toMatchObject({ status: "in_triage", pending_status_change: null });
    expect((await act("confirm", reviewer.token, declined.json.version as number)).status).toBe(409);
    expect((await gate()).passed).toBe(false);
  });

  it("a VEX import records a named status as pending; another person confirms it", async () => {
    const r = await importVex({
      vulnerability: { name: "CVE-2021-44228" },
      products: [{ "@id": finding.purl }],
      status: "not_affected",
      justification: "vulnerable_code_not_in_execute_path",
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ findings_updated: 0, findings_pending_confirmation: 1 });
    const f = await current();
    expect(f).toMatchObject({
      status: "in_triage",
      pending_status_change: { status: "not_affected", requested_by: teamAdmin.id },
    });
    expect((await gate()).passed).toBe(false);
    expect((await act("confirm", teamAdmin.token, f.version)).status).toBe(403);
    const confirmed = await act("confirm", developer.token, f.version);
    expect(confirmed.status).toBe(200);
    expect(confirmed.json.status).toBe("not_affected");
    expect((await gate()).passed).toBe(true);
  });

  it("audits the requests, the confirmations and the decline through the outbox", async () => {
    const events = await audit.waitFor(
      AuditEventSchema,
      (e) =>
        ["vulnerability_finding.status_change_requested", "vulnerability_finding.status_confirmed"].includes(
          e.action,
        ) && e.details.project_id === projectId,
      4,
    );
    const requested = events.find((e) => e.action === "vulnerability_finding.status_change_requested")!;
    expect(requested).toMatchObject({ source: "projects", targetTable: "finding_triage", teamId: team.id });
    expect(requested.actor?.userId).toBe(developer.id);
    expect(requested.details).toMatchObject({ from: "in_triage", to: "not_affected" });
    const confirmed = events.find((e) => e.action === "vulnerability_finding.status_confirmed")!;
    expect(confirmed.actor?.userId).toBe(reviewer.id);
    expect(confirmed.details).toMatchObject({ to: "not_affected", requested_by: developer.id });
    await audit.waitFor(
      AuditEventSchema,
      (e) => e.action === "vulnerability_finding.status_change_declined" && e.details.project_id === projectId,
    );
  });

  it("once the team's policy is deleted (and the organization sets none), one person closes a finding", async () => {
    expect((await s.request("DELETE", `/v1/gate-policies/teams/${team.id}`, { bearer: teamAdmin.token })).status).toBe(
      204,
    );
    await projectsKnow(null);
    const f = await current();
    const reopened = await patch(developer.token, f.version, { status: "exploitable" });
    expect(reopened.status).toBe(200);
    const resolved = await patch(developer.token, reopened.json.version as number, { status: "resolved" });
    expect(resolved.status).toBe(200);
    expect(resolved.json).toMatchObject({ status: "resolved", pending_status_change: null });
    expect((await gate()).passed).toBe(true);
  });
});
