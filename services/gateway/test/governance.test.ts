// The governance band (GET /v1/projects/{id}/governance) through a real gateway, identity, projects and policy: the
// gate verdict, the KEV due-date state of the open findings (Log4Shell's 2021 due date is overdue; a made-up listing
// due in three days is due soon), the approvals pending and under review, the overview's risk score, scanned or not,
// and the trend over two scans (the second without Log4Shell and one lodash advisory: improving); the band hidden as
// the project is. Then reachable_critical_only: with no reachability analysis every open critical still counts, and
// the result says the flag was not applied.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { VulnerabilitySchema } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import { callAs } from "@sca/testkit";
import { startGateStack, type GateStack } from "./gate-stack.ts";

let s: GateStack;
let team: { id: string; organizationId: string };
let root: { id: string; token: string };
let teamAdmin: { id: string; token: string };
let developer: { id: string; token: string };
let viewer: { id: string; token: string };
let stranger: { id: string; token: string };
let projectId: string;

type Band = {
  project_id: string;
  scanned: boolean;
  scan_id: string | null;
  risk_score: number;
  gate: { passed: boolean; outcome: string; critical_count: number; reasons: { code: string; message: string }[] };
  kev_sla: Record<string, unknown>;
  pending_approvals: number;
  pending_approvals_by_status: { pending: number; under_review: number };
  trend: { direction: string; points: Record<string, unknown>[] };
  [k: string]: unknown;
};

const band = async (id = projectId, bearer = viewer.token) => {
  const r = await s.request("GET", `/v1/projects/${id}/governance`, { bearer });
  expect(r.status).toBe(200);
  return r.json as Band;
};
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  s = await startGateStack();
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
  await s?.close();
});

describe("GET /v1/projects/{id}/governance", () => {
  it("composes the gate, the KEV due dates, the risk score and the scan state of the newest scan", async () => {
    const b = await band();
    expect(b).toMatchObject({
      project_id: projectId,
      scanned: true,
      pending_approvals: 0,
      pending_approvals_by_status: { pending: 0, under_review: 0 },
      pending_status_confirmations: 0,
      kev_sla: {
        state: "overdue",
        open_count: 1,
        overdue_count: 1,
        due_soon_count: 0,
        without_due_date_count: 0,
        next_due_date: null,
        oldest_overdue_date: "2021-12-24",
      },
      trend: { direction: "unknown" },
    });
    expect(b.trend.points).toEqual([
      expect.objectContaining({ scan_id: b.scan_id, open_findings: 5, critical: 1, high: 2, medium: 2, low: 0 }),
    ]);
    // The gate is the gate-result's verdict, word for word.
    const gate = await s.request("GET", `/v1/projects/${projectId}/gate-result`, { bearer: viewer.token });
    expect({ ...b.gate, evaluated_at: null }).toEqual({ ...gate.json, evaluated_at: null });
    expect(b.gate).toMatchObject({ passed: false, outcome: "fail", critical_count: 1 });
    expect(b.scan_id).toBe(gate.json.scan_id);
    // The risk score is the overview's (license categories arrive from policy after ingestion: wait for agreement).
    const deadline = Date.now() + 20_000;
    for (;;) {
      // The overview route also asks the scan orchestrator, which this stack has not: projects' own answer.
      const { overview } = await s.projects
        .client(ProjectService)
        .getProjectOverview({ projectId }, await callAs.superAdmin(root.id));
      const now = await band();
      if (now.risk_score === overview!.riskScore) break;
      if (Date.now() > deadline) throw new Error(`risk ${now.risk_score} vs overview ${overview!.riskScore}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(b.risk_score).toBeGreaterThanOrEqual(0);
    expect(b.risk_score).toBeLessThanOrEqual(100);
  });

  it("counts the project's approval requests pending and under review", async () => {
    const components = await s.request("GET", `/v1/projects/${projectId}/components?limit=2`, {
      bearer: viewer.token,
    });
    const [first, second] = components.json.items as { component_id: string }[];
    const ask = (componentId: string) =>
      s.request("POST", "/v1/approvals", {
        bearer: developer.token,
        body: { project_id: projectId, component_id: componentId },
      });
    const a = await ask(first!.component_id);
    expect(a.status).toBe(201);
    expect((await ask(second!.component_id)).status).toBe(201);
    const review = await s.request("PATCH", `/v1/approvals/${a.json.id as string}/transition`, {
      bearer: teamAdmin.token,
      headers: { "if-match": '"1"' },
      body: { action: "under_review", decision_note: "Looking at it" },
    });
    expect(review.status).toBe(200);
    expect(await band()).toMatchObject({
      pending_approvals: 2,
      pending_approvals_by_status: { pending: 1, under_review: 1 },
    });
    const decided = await s.request("PATCH", `/v1/approvals/${a.json.id as string}/transition`, {
      bearer: teamAdmin.token,
      headers: { "if-match": '"2"' },
      body: { action: "approved", decision_note: "Fine" },
    });
    expect(decided.status).toBe(200);
    expect((await band()).pending_approvals).toBe(1);
  });

  it("a newer scan without Log4Shell and one lodash advisory: the trend improves, the KEV state follows", async () => {
    const listed = `CVE-2099-${randomUUID().slice(0, 5)}`;
    const scanId = await s.ingestScan(projectId, (m) => {
      m.vulnerabilities!.push(
        create(VulnerabilitySchema, {
          id: listed,
          summary: "A listing due soon",
          severity: "medium",
          knownExploited: true,
          kevDueDate: inDays(3),
        }),
      );
      for (const v of m.verdicts!) {
        if (v.package?.name === "org.apache.logging.log4j:log4j-core")
          v.vulnerabilities = [{ vulnerabilityId: listed, fixedVersions: [] }];
        if (v.package?.name === "lodash")
          v.vulnerabilities = v.vulnerabilities!.filter((x) => x.vulnerabilityId !== "CVE-2020-28500");
      }
    });
    const b = await band();
    expect(b).toMatchObject({
      scan_id: scanId,
      kev_sla: { state: "due_soon", open_count: 1, overdue_count: 0, due_soon_count: 1, next_due_date: inDays(3) },
      trend: { direction: "improving" },
      gate: { passed: true, critical_count: 0 },
    });
    expect(b.trend.points.map((p) => [p.open_findings, p.critical])).toEqual([
      [5, 1],
      [4, 0],
    ]);
    expect(b.trend.points[1]!.risk_score).toBeLessThanOrEqual(b.trend.points[0]!.risk_score as number);
  });

  it("a project without a scan: not scanned, the gate's no_scan, nothing known", async () => {
    const created = await s.request("POST", "/v1/projects", {
      bearer: root.token,
      body: { name: "Unscanned", slug: `unscanned-${randomUUID().slice(0, 8)}`, team_id: team.id },
    });
    expect(await band(created.json.id as string)).toMatchObject({
      scanned: false,
      scan_id: null,
      scanned_at: null,
      risk_score: 0,
      gate: { passed: false, outcome: "no_scan" },
      kev_sla: { state: "none", open_count: 0 },
      trend: { direction: "unknown", points: [] },
      pending_approvals: 0,
    });
  });

  it("is as visible as the project: 404 to outsiders, 401 without a caller, problem+json", async () => {
    const hidden = await s.request("GET", `/v1/projects/${projectId}/governance`, { bearer: stranger.token });
    expect(hidden.status).toBe(404);
    expect(hidden.contentType).toMatch(/application\/problem\+json/);
    expect((await s.request("GET", `/v1/projects/${randomUUID()}/governance`, { bearer: viewer.token })).status).toBe(
      404,
    );
    expect((await s.request("GET", `/v1/projects/${projectId}/governance`)).status).toBe(401);
  });
});

describe("reachable_critical_only", () => {
  it("on a scan without reachability analysis every open critical counts, and the result says it was not applied", async () => {
    const other = await s.projectWithFindings(team.id, root.token);
    const put = await s.request("PUT", `/v1/gate-policies/teams/${team.id}`, {
      bearer: teamAdmin.token,
      body: { reachable_critical_only: true },
    });
    expect(put.status).toBe(201);
    const r = await s.request("GET", `/v1/projects/${other}/gate-result`, { bearer: viewer.token });
    expect(r.json).toMatchObject({
      passed: false,
      critical_count: 1,
      reachable_critical_only: true,
      reachability_analysed: false,
      reachable_critical_only_applied: false,
    });
    const [reason] = r.json.reasons as { code: string; message: string }[];
    expect(reason).toMatchObject({ code: "critical_vulnerabilities" });
    expect(reason!.message).toMatch(/no reachability analysis, so every critical counts/);
    // Off again: the same count, without the note.
    await s.request("PUT", `/v1/gate-policies/teams/${team.id}`, {
      bearer: teamAdmin.token,
      body: { reachable_critical_only: false },
    });
    const off = await s.request("GET", `/v1/projects/${other}/gate-result`, { bearer: viewer.token });
    expect(off.json).toMatchObject({ critical_count: 1, reachable_critical_only: false });
    expect((off.json.reasons as { message: string }[])[0]!.message).not.toMatch(/reachability/);
  });
});
