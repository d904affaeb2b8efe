// Malicious-package waivers through a real gateway, identity, projects and policy (the gate stack): a team_admin
// waives a flagged component of a project for at most MALICIOUS_WAIVE_MAX_DAYS days; the gate passes while the
// waiver is active and counts the component in malicious_waived_count; it fails again once the waiver expires or is
// revoked; who may waive; every grant and revocation audited through the outbox.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOPICS } from "@sca/kafka";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { EventReader, fixturesOf } from "@sca/testkit";
import { startGateStack, type GateStack } from "./gate-stack.ts";

let s: GateStack;
let audit: EventReader;
let root: { id: string; token: string };
let teamAdmin: { id: string; token: string };
let developer: { id: string; token: string };
let stranger: { id: string; token: string };
let projectId: string;
let purl: string;

const sql = async (text: string, params: unknown[]) =>
  (await fixturesOf("projects")).write(s.projects.orm, text, params);
/** The gate's malicious check (the findings fixture's critical fails the gate whatever the waivers). */
const gate = async () => {
  const r = await s.request("GET", `/v1/projects/${projectId}/gate-result`, { bearer: developer.token });
  expect(r.status).toBe(200);
  const result = r.json as {
    reasons: { code: string }[];
    malicious_component_count: number;
    malicious_waived_count: number;
  };
  return {
    blocks: result.reasons.some((x) => x.code === "malicious_components"),
    malicious_component_count: result.malicious_component_count,
    malicious_waived_count: result.malicious_waived_count,
  };
};
const waive = (bearer: string, body: Record<string, unknown>) =>
  s.request("POST", `/v1/projects/${projectId}/malicious-waivers`, { bearer, body });

beforeAll(async () => {
  s = await startGateStack();
  audit = await EventReader.start(s.projects.kafka!, TOPICS.auditEvents);
  const team = await s.team();
  const other = await s.team();
  root = await s.person([], true);
  teamAdmin = await s.person([[team.id, "team_admin"]]);
  developer = await s.person([[team.id, "developer"]]);
  stranger = await s.person([[other.id, "team_admin"]]);
  projectId = await s.projectWithFindings(team.id, root.token);
  // left-pad flagged as a refresh of the malicious snapshot would flag it (gate.test.ts does the same).
  const rows = (await sql(
    `update inventory_components set malicious_state = 'flagged' where project_id = ? and name = 'left-pad'
     returning purl`,
    [projectId],
  )) as { purl: string }[];
  purl = rows[0]!.purl;
}, 180_000);

afterAll(async () => {
  await audit?.stop();
  await s?.close();
});

describe("malicious-package waivers", () => {
  it("only a team_admin of the project's team waives, for 1 to MALICIOUS_WAIVE_MAX_DAYS (30) days", async () => {
    const reason = "Vendored fork reviewed by security";
    expect((await waive(developer.token, { purl, reason, days: 7 })).status).toBe(403);
    expect((await waive(stranger.token, { purl, reason, days: 7 })).status).toBe(403);
    for (const body of [
      { purl, reason, days: 31 },
      { purl, reason, days: 0 },
      // Past the int32 of the contract: a 422, never a 500 (the fuzzing gate found it).
      { purl, reason, days: 9007199254740990 },
      { purl, reason: "", days: 7 },
      { purl: "left-pad", reason, days: 7 },
      { purl, reason, days: 7, extra: true },
    ]) {
      const r = await waive(teamAdmin.token, body);
      expect(r.status).toBe(422);
      expect(r.contentType).toMatch(/application\/problem\+json/);
    }
    const list = await s.request("GET", `/v1/projects/${projectId}/malicious-waivers`, { bearer: developer.token });
    expect(list.json).toEqual({ items: [], total: 0 });
  });

  it("an active waiver lets the gate pass and is counted apart; expiry makes it fail again", async () => {
    const before = await gate();
    expect(before).toMatchObject({ blocks: true, malicious_component_count: 1, malicious_waived_count: 0 });

    const started = Date.now();
    const created = await waive(teamAdmin.token, { purl, reason: "False positive: reviewed", days: 30 });
    expect(created.status).toBe(201);
    const waiver = created.json as { id: string; expires_at: string; state: string; created_by_user_id: string };
    expect(waiver).toMatchObject({ project_id: projectId, purl, state: "active", created_by_user_id: teamAdmin.id });
    const days = (Date.parse(waiver.expires_at) - started) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThan(30.01);
    expect(await gate()).toMatchObject({ blocks: false, malicious_component_count: 0, malicious_waived_count: 1 });

    // Expiry without waiting 30 days: the row is moved into the past, as the clock would move it.
    await sql(`update malicious_waivers set expires_at = now() - interval '1 second' where id = ?`, [waiver.id]);
    expect(await gate()).toMatchObject({ blocks: true, malicious_component_count: 1, malicious_waived_count: 0 });
    const active = await s.request("GET", `/v1/projects/${projectId}/malicious-waivers`, { bearer: developer.token });
    expect(active.json).toEqual({ items: [], total: 0 });
    const all = await s.request("GET", `/v1/projects/${projectId}/malicious-waivers?include_inactive=true`, {
      bearer: developer.token,
    });
    expect(all.json).toMatchObject({ items: [{ id: waiver.id, state: "expired" }], total: 1 });
  });

  it("a revoked waiver stops counting at once; outsiders see nothing", async () => {
    const created = await waive(teamAdmin.token, { purl, reason: "Pinned until the upstream fix", days: 3 });
    const id = (created.json as { id: string }).id;
    expect(await gate()).toMatchObject({ blocks: false, malicious_waived_count: 1 });
    const path = `/v1/projects/${projectId}/malicious-waivers/${id}`;
    expect((await s.request("DELETE", path, { bearer: developer.token })).status).toBe(403);
    expect((await s.request("DELETE", path, { bearer: teamAdmin.token })).status).toBe(204);
    expect(await gate()).toMatchObject({ blocks: true, malicious_component_count: 1, malicious_waived_count: 0 });
    const unknown = `/v1/projects/${projectId}/malicious-waivers/00000000-0000-4000-8000-000000000000`;
    expect((await s.request("DELETE", unknown, { bearer: teamAdmin.token })).status).toBe(404);
    const hidden = await s.request("GET", `/v1/projects/${projectId}/malicious-waivers`, { bearer: stranger.token });
    expect(hidden.status).toBe(403);
  });

  it("audits each grant and revocation through the outbox", async () => {
    const events = await audit.waitFor(AuditEventSchema, (e) => e.action.startsWith("malicious_waiver."), 3);
    expect(events.map((e) => e.action).sort()).toEqual([
      "malicious_waiver.created",
      "malicious_waiver.created",
      "malicious_waiver.revoked",
    ]);
    for (const e of events) {
      expect(e).toMatchObject({ source: "projects", targetTable: "malicious_waivers", outcome: "success" });
      expect(e.actor?.userId).toBe(teamAdmin.id);
      expect(e.details).toMatchObject({ project_id: projectId, purl });
    }
  });
});
