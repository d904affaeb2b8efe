// The dashboards through a real gateway, identity, projects and policy (docs/dashboards.md): two teams' projects
// with the findings fixture (Log4Shell critical and known exploited, two highs, two mediums), an approval request,
// then each route's fields against that data, the scoping (a reader of team A never sees team B's numbers), and the
// one rate-limit bucket per actor. The trend after a fix: services/projects/test/dashboards.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually } from "@sca/testkit";
import { startGateStack, type GateStack } from "./gate-stack.ts";

// A small bucket, so the limit test reaches it in a few requests (the default is 120/minute).
const LIMIT = 40;
let s: GateStack;
let admin: string;
let readerA: string;
let readerB: string;
let projectA: string;
let projectB: string;
let teamA: { id: string };

beforeAll(async () => {
  s = await startGateStack({}, { DASHBOARD_RATE_LIMIT: `${LIMIT}/minute` });
  teamA = await s.team();
  const teamB = await s.team();
  admin = (await s.person([], true)).token;
  readerA = (await s.person([[teamA.id, "viewer"]])).token;
  readerB = (await s.person([[teamB.id, "viewer"]])).token;
  projectA = await s.projectWithFindings(teamA.id, admin);
  projectB = await s.projectWithFindings(teamB.id, admin);
  // Licenses are categorised after ingestion, on Kafka (docs/license-policies.md): the overview's license counts are
  // read once every component has its category.
  for (const project of [projectA, projectB]) {
    const rows = await eventually(
      () => s.request("GET", `/v1/projects/${project}/licenses?limit=500`, { bearer: admin }),
      (r) => {
        const items = r.json.items as { license_category?: string | null }[];
        return items.length > 0 && items.every((i) => i.license_category != null);
      },
    );
    expect((rows.json.items as { license_category?: string | null }[]).every((i) => i.license_category != null)).toBe(
      true,
    );
  }
  const components = await s.request("GET", `/v1/projects/${projectA}/components?limit=1`, { bearer: readerA });
  const componentId = (components.json.items as { component_id: string }[])[0]!.component_id;
  const approval = await s.request("POST", "/v1/approvals", {
    bearer: readerA,
    body: { component_id: componentId, project_id: projectA },
  });
  expect(approval.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await s?.close();
});

const get = (path: string, bearer: string) => s.request("GET", `/v1/dashboard/${path}`, { bearer });

describe("GET /v1/dashboard/overview", () => {
  it("counts the caller's teams' projects, and the organization for a super_admin", async () => {
    const a = await get("overview", readerA);
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({
      reach: "teams",
      project_count: 1,
      pending_approvals_count: 1,
      vulnerability_severity_counts: { critical: 1, high: 2, medium: 2, low: 0, unknown: 0 },
      known_exploited_count: 1,
      recent_scans: [],
    });
    // Components by license category: the project's license findings, counted here.
    const rows = await s.request("GET", `/v1/projects/${projectA}/licenses?limit=500`, { bearer: readerA });
    const category = (c: string | null) =>
      (rows.json.items as { license_category: string | null }[]).filter((r) => (r.license_category ?? null) === c)
        .length;
    expect(a.json.license_category_counts).toEqual({
      allowed: category("allowed"),
      conditional: category("conditional"),
      forbidden: category("forbidden"),
      uncategorized: category(null),
    });
    const b = await get("overview", readerB);
    expect(b.json).toMatchObject({ reach: "teams", project_count: 1, pending_approvals_count: 0 });
    const all = await get("overview", admin);
    expect(all.json).toMatchObject({
      reach: "organization",
      project_count: 2,
      pending_approvals_count: 1,
      vulnerability_severity_counts: { critical: 2, high: 4, medium: 4 },
      known_exploited_count: 2,
    });
  });
});

describe("GET /v1/dashboard/action-queue", () => {
  it("lists the gate-blocked, KEV and stale projects and the approvals to decide, each team its own", async () => {
    const a = await get("action-queue", readerA);
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({
      reach: "teams",
      gate_blocked: { count: 1, items: [{ project_id: projectA, critical: 1, known_exploited: 1 }] },
      kev_sla: { count: 1, items: [{ project_id: projectA, kev_oldest_due_date: "2021-12-24" }] },
      stale_projects: { count: 0, items: [] },
      stale_after_days: 30,
    });
    const pending = a.json.pending_approvals as { count: number; items: { project_id: string; status: string }[] };
    expect(pending.count).toBe(1);
    expect(pending.items[0]).toMatchObject({ project_id: projectA, status: "pending" });
    const b = await get("action-queue", readerB);
    expect((b.json.gate_blocked as { items: { project_id: string }[] }).items.map((i) => i.project_id)).toEqual([
      projectB,
    ]);
    expect(b.json.pending_approvals).toEqual({ count: 0, items: [] });
    const limited = await get("action-queue?limit=1", admin);
    expect(limited.json.gate_blocked).toMatchObject({ count: 2 });
    expect((limited.json.gate_blocked as { items: unknown[] }).items).toHaveLength(1);
    expect((await get("action-queue?limit=101", admin)).status).toBe(422);
  });
});

describe("GET /v1/dashboard/teams-by-risk", () => {
  it("ranks the caller's teams with their names and counts", async () => {
    const a = await get("teams-by-risk", readerA);
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({
      reach: "teams",
      team_count: 1,
      project_count: 1,
      shown_team_count: 1,
      shown_project_count: 1,
      truncated: false,
    });
    const [team] = a.json.teams as Record<string, unknown>[];
    expect(team).toMatchObject({
      team_id: teamA.id,
      project_count: 1,
      gate_blocked: 1,
      known_exploited: 1,
      vulnerability_severity_counts: { critical: 1, high: 2, medium: 2 },
    });
    expect(team!.team_name).toMatch(/^Team team-/);
    // The governance band's risk score of the project (its overview's, docs/governance.md).
    const band = await s.request("GET", `/v1/projects/${projectA}/governance`, { bearer: readerA });
    expect(team!.risk_score).toBe(band.json.risk_score);
    const all = await get("teams-by-risk", admin);
    expect(all.json).toMatchObject({ reach: "organization", team_count: 2, project_count: 2, truncated: false });
  });
});

describe("GET /v1/dashboard/trends", () => {
  it("answers the buckets asked for, oldest first", async () => {
    const r = await get("trends?interval=week&points=4", readerA);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ reach: "teams", interval: "week" });
    const buckets = r.json.buckets as { period_start: string }[];
    expect(buckets).toHaveLength(4);
    expect(buckets.map((b) => b.period_start)).toEqual([...buckets.map((b) => b.period_start)].sort());
    // The gate outcomes judged by each team's policy (null for a bucket with no day judged; values:
    // services/projects/test/dashboards.test.ts).
    for (const b of buckets) expect(b).toHaveProperty("gate_passed");
    expect((await get("trends?interval=year", readerA)).status).toBe(422);
  });
});

describe("the dashboards' rate limit", () => {
  it("counts every dashboard route of one actor in one bucket: 429 with Retry-After past it, others unaffected", async () => {
    const actor = (await s.person([[teamA.id, "viewer"]])).token;
    const paths = ["overview", "action-queue", "teams-by-risk", "trends"];
    for (let i = 0; i < LIMIT; i++) expect((await get(paths[i % paths.length]!, actor)).status).toBe(200);
    const refused = await get("trends", actor);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers!.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.json).toMatchObject({ status: 429 });
    expect((await get("overview", readerB)).status).toBe(200);
  });
});
