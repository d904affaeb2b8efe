// The dashboards' kept rows through the real servers (docs/dashboards.md): a project's figures counted when its
// verdicts are recorded, the daily rows the job writes once per day, and the trend after a fix (a new scan where
// log4j-core no longer carries Log4Shell) showing the drop, and each project's gate outcome judged by its team's own
// policy (a real policy service). The job is called for chosen days here (its schedule is a day's; the seam keeps it
// from running on its own during the test).
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { column, rawQuery } from "@sca/db";
import { GatePolicyService } from "@sca/proto/sca/policy/v1/gate_policies_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { PortfolioService } from "@sca/proto/sca/projects/v1/portfolio_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import { callAs, eventually, ingestArtefact, publishScanState, TEST_SECRET, type CallOptions } from "@sca/testkit";
import { policyGateResults, type GateResults } from "../src/clients/gate-results.ts";
import { recordDailyMetrics } from "../src/events/daily-metrics.ts";
import { findingsArtefact, scanMatches } from "./support/findings-fixture.ts";
import { startProjects, type ProjectsHarness, type TeamFixture } from "./support/projects-harness.ts";

let h: ProjectsHarness;
let dir: string;
let store: DirectoryArtefactStore;
let portfolio: Client<typeof PortfolioService>;
let runner: CallOptions;
let teamA: TeamFixture;
let teamB: TeamFixture;
let readerA: CallOptions;
let readerB: CallOptions;
let projectA: string;
let projectB: string;
let gate: GateResults;

const DAY_MS = 86_400_000;
const today = new Date();
const yesterday = new Date(today.getTime() - DAY_MS);
const iso = (d: Date) => d.toISOString().slice(0, 10);
const never = new AbortController().signal;

async function newProject(team: TeamFixture): Promise<string> {
  const slug = `d-${randomUUID().slice(0, 8)}`;
  const created = await h.client.createProject(
    { project: { name: `Dash ${slug}`, slug, teamId: team.id } },
    await h.superAdmin(),
  );
  return created.project!.id;
}

/** A new scan of the fixture's inventory with its verdicts; `fixed` drops Log4Shell from log4j-core's verdict. */
async function scanned(projectId: string, fixed = false): Promise<string> {
  const scanId = await ingestArtefact(h.projects.client(InventoryService), store, projectId, findingsArtefact());
  const matches = scanMatches(projectId, scanId);
  if (fixed)
    for (const v of matches.verdicts!)
      if (v.package?.name === "org.apache.logging.log4j:log4j-core") v.vulnerabilities = [];
  await h.projects.client(VulnerabilityMatchService).recordScanMatches(matches, runner);
  return scanId;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-dashboards-"));
  store = new DirectoryArtefactStore(dir);
  // The daily job runs at start (nothing to write then) and not again during the test: it is called below.
  h = await startProjects({ ARTEFACT_DIR: dir }, { dailyMetricsEveryMs: 10 * DAY_MS }, { policy: true });
  gate = policyGateResults(h.policy!.url!, TEST_SECRET);
  portfolio = h.projects.client(PortfolioService);
  runner = await callAs.service("scanner-runner");
  teamA = await h.team();
  teamB = await h.team();
  readerA = await h.as(randomUUID(), [[teamA, "viewer"]]);
  readerB = await h.as(randomUUID(), [[teamB, "viewer"]]);
  projectA = await newProject(teamA);
  projectB = await newProject(teamB);
  await scanned(projectA);
  await scanned(projectB);
}, 60_000);

afterAll(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("project figures", () => {
  it("are counted from the newest snapshot when its verdicts are recorded, each team seeing its own", async () => {
    // The fixture's open findings: Log4Shell (critical, known exploited), two highs, two mediums.
    const a = await portfolio.getPortfolioOverview({}, readerA);
    expect(a.reach).toBe("teams");
    expect(a.projectCount).toBe(1);
    expect(a.vulnerabilitySeverityCounts).toMatchObject({ critical: 1, high: 2, medium: 2, low: 0, unknown: 0 });
    expect(a.knownExploitedCount).toBe(1);
    const all = await portfolio.getPortfolioOverview({}, await h.superAdmin());
    expect(all.reach).toBe("organization");
    expect(all.projectCount).toBe(2);
    expect(all.vulnerabilitySeverityCounts).toMatchObject({ critical: 2, high: 4, medium: 4 });
    const queue = await portfolio.getActionQueue({}, readerB);
    expect(queue.gateBlocked.map((p) => p.projectId)).toEqual([projectB]);
    expect(queue.kevSla.map((p) => [p.projectId, p.kevOldestDueDate])).toEqual([[projectB, "2021-12-24"]]);
    expect(queue.staleProjectCount).toBe(0);
  });
});

describe("daily metrics and trends", () => {
  it("write each day's rows once, and the trend after a fix shows the drop", async () => {
    const first = await recordDailyMetrics(h.projects.orm, gate, yesterday, never);
    // Two projects, two teams and one organization (both teams share the deployment's single organization).
    expect(first.written).toBe(2 + 2 + (teamA.organizationId === teamB.organizationId ? 1 : 2));
    // Idempotent per day: a second run writes nothing and rewrites nothing.
    expect((await recordDailyMetrics(h.projects.orm, gate, yesterday, never)).written).toBe(0);

    await scanned(projectA, true);
    await recordDailyMetrics(h.projects.orm, gate, today, never);

    const trend = await portfolio.getTrends({ interval: "day", points: 2 }, readerA);
    expect(trend.buckets.map((b) => b.periodStart)).toEqual([iso(yesterday), iso(today)]);
    const [before, after] = trend.buckets;
    expect(before!.measuredOn).toBe(iso(yesterday));
    expect(before!.vulnerabilitySeverityCounts).toMatchObject({ critical: 1, high: 2, medium: 2 });
    expect(before!.knownExploited).toBe(1);
    expect(before!.gateBlocked).toBe(1);
    expect(before!.openFindings).toBe(5);
    expect(after!.vulnerabilitySeverityCounts).toMatchObject({ critical: 0, high: 2, medium: 2 });
    expect(after!.knownExploited).toBe(0);
    expect(after!.openFindings).toBe(4);
    expect(after!.fixedFindings).toBe(1);
    expect(after!.meanDaysToRemediate).toBeGreaterThanOrEqual(0);
    // Team B's trend never shows team A's fix.
    const other = await portfolio.getTrends({ interval: "day", points: 2 }, readerB);
    expect(other.buckets.map((b) => b.vulnerabilitySeverityCounts?.critical)).toEqual([1, 1]);
    // The organization's rows hold both teams.
    const org = await portfolio.getTrends({ interval: "day", points: 2 }, await h.superAdmin());
    expect(org.buckets.map((b) => b.vulnerabilitySeverityCounts?.critical)).toEqual([2, 1]);
  });

  it("answers week and month buckets from each bucket's last recorded day, and refuses a bad interval", async () => {
    const week = await portfolio.getTrends({ interval: "week", points: 1 }, readerA);
    expect(week.buckets).toHaveLength(1);
    // Yesterday and today fall in one week unless today is a Monday.
    expect(week.buckets[0]!.measuredOn).toBe(iso(today));
    expect(week.buckets[0]!.vulnerabilitySeverityCounts?.critical).toBe(0);
    const month = await portfolio.getTrends({ interval: "month" }, readerA);
    expect(month.buckets).toHaveLength(12);
    expect(month.buckets.at(-1)!.periodStart).toBe(`${iso(today).slice(0, 7)}-01`);
    await expect(portfolio.getTrends({ interval: "year" }, readerA)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
  });

  it("shows an organization key its organization and keeps a project-scoped key out", async () => {
    const grant = { team_id: null, project_id: null, permission_breadth: "read_only" as const };
    const orgKey = await callAs.apiKey(randomUUID(), {
      ...grant,
      scope: "org",
      organization_id: teamA.organizationId,
    });
    const org = await portfolio.getPortfolioOverview({}, orgKey);
    expect(org.reach).toBe("organization");
    expect(org.projectCount).toBe(teamA.organizationId === teamB.organizationId ? 2 : 1);
    const projectKey = await callAs.apiKey(
      randomUUID(),
      { ...grant, scope: "project", organization_id: teamA.organizationId, project_id: projectA },
      { memberships: [{ team_id: teamA.id, organization_id: teamA.organizationId, role: "viewer" }] },
    );
    const refused = await portfolio
      .getPortfolioOverview({}, projectKey)
      .catch((e: unknown) => ConnectError.from(e).code);
    expect(refused).toBe(Code.PermissionDenied);
  });
});

describe("scan news", () => {
  /** Publishes the scan-orchestrator's ScanStateChanged for the scan, as its relay does. */
  async function scanState(projectId: string, team: TeamFixture, scanId: string, status: string, createdAt: Date) {
    const producer = h.projects.kafka!.producer();
    await producer.connect();
    await publishScanState(h.projects, producer, { scanId, projectId, teamId: team.id, status, createdAt });
    await producer.disconnect();
  }

  it("list each team's recent scans newest first, count the newest statuses, and a success writes its day", async () => {
    const projectC = await newProject(teamA);
    const scanC = await scanned(projectC);
    const failed = randomUUID();
    await scanState(projectB, teamB, failed, "failed", new Date(Date.now() - 60_000));
    await scanState(projectC, teamA, scanC, "succeeded", new Date(Date.now() - 30_000));
    const running = randomUUID();
    await scanState(projectA, teamA, running, "running", new Date(Date.now() - 90_000));
    const overview = await eventually(
      () => portfolio.getPortfolioOverview({}, readerA),
      (o) => o.recentScans.length === 2,
    );
    expect(overview.recentScans.map((r) => [r.scanId, r.projectId, r.status])).toEqual([
      [scanC, projectC, "succeeded"],
      [running, projectA, "running"],
    ]);
    expect(overview.scanStatusCounts).toEqual({ succeeded: 1, running: 1 });
    const b = await eventually(
      () => portfolio.getPortfolioOverview({}, readerB),
      (o) => o.recentScans.length === 1,
    );
    expect(b.recentScans.map((r) => [r.scanId, r.status])).toEqual([[failed, "failed"]]);
    expect(b.scanStatusCounts).toEqual({ failed: 1 });
    // The success wrote project C's row of today (C had none: the job ran before C existed).
    const rows = await rawQuery(
      h.projects.orm.em.fork(),
      `select critical, open_findings, gate_failed from daily_metrics
        where scope = 'project' and scope_id = ? and day = ?::date`,
      [projectC, iso(today)],
      { critical: column.integer, openFindings: column.integer, gateFailed: column.integer.nullable },
    );
    // Judged by policy on the success: Log4Shell is an open critical, so the gate fails.
    expect(rows).toEqual([{ critical: 1, openFindings: 5, gateFailed: 1 }]);
  });
});

describe("gate outcomes in the daily rows", () => {
  /** Each named scope's [gate_passed, gate_failed] of the day. */
  async function outcomes(day: Date, scopeIds: string[]) {
    const rows = await rawQuery(
      h.projects.orm.em.fork(),
      `select scope_id, gate_passed, gate_failed from daily_metrics
        where day = ?::date and scope_id in (select jsonb_array_elements_text(?::jsonb)::uuid)`,
      [iso(day), JSON.stringify(scopeIds)],
      { scopeId: column.text, gatePassed: column.integer.nullable, gateFailed: column.integer.nullable },
    );
    return Object.fromEntries(rows.map((r) => [r.scopeId, [r.gatePassed, r.gateFailed]]));
  }

  it("judge each project by its team's own policy, and a policy change shows in the next day's row only", async () => {
    const gates = h.policy!.client(GatePolicyService);
    const teamC = await h.team();
    const teamD = await h.team();
    const adminC = await h.as(randomUUID(), [[teamC, "team_admin"]]);
    const adminD = await h.as(randomUUID(), [[teamD, "team_admin"]]);
    // The fixed scan's open findings are two highs with EPSS 0.01 and 0.02 and two mediums, no critical: team C's
    // threshold of 0.015 fails the gate, team D (no threshold: the built-in default) passes with the same components.
    await gates.putTeamGatePolicy({ teamId: teamC.id, policy: { epssThreshold: 0.015 } }, adminC);
    const projectC = await newProject(teamC);
    const projectD = await newProject(teamD);
    await scanned(projectC, true);
    await scanned(projectD, true);
    const earlier = new Date(today.getTime() - 3 * DAY_MS);
    const later = new Date(today.getTime() - 2 * DAY_MS);
    const scopes = [projectC, teamC.id, projectD, teamD.id];

    await recordDailyMetrics(h.projects.orm, gate, earlier, never);
    const kept = {
      [projectC]: [0, 1],
      [teamC.id]: [0, 1],
      [projectD]: [1, 0],
      [teamD.id]: [1, 0],
    };
    expect(await outcomes(earlier, scopes)).toEqual(kept);
    // The action queue and teams by risk read the judged outcome: no critical, forbidden license or malicious
    // package (the gate's default checks), yet team C's project is blocked by its own threshold.
    const readerC = await h.as(randomUUID(), [[teamC, "viewer"]]);
    const readerD = await h.as(randomUUID(), [[teamD, "viewer"]]);
    expect((await portfolio.getActionQueue({}, readerC)).gateBlocked.map((p) => p.projectId)).toEqual([projectC]);
    expect((await portfolio.getActionQueue({}, readerD)).gateBlockedCount).toBe(0);
    expect((await portfolio.listTeamsByRisk({}, readerC)).teams.map((t) => t.gateBlocked)).toEqual([1]);
    // Judging kept figures is the projects service's alone: a person, even the team's admin, is refused.
    await expect(gates.judgeGateFigures({ projects: [] }, adminC)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });

    // Team D takes the same threshold: the earlier day's rows stay as written, even when the job runs for it again.
    await gates.putTeamGatePolicy({ teamId: teamD.id, policy: { epssThreshold: 0.015 } }, adminD);
    expect((await recordDailyMetrics(h.projects.orm, gate, earlier, never)).written).toBe(0);
    await recordDailyMetrics(h.projects.orm, gate, later, never);
    expect(await outcomes(later, scopes)).toEqual({
      [projectC]: [0, 1],
      [teamC.id]: [0, 1],
      [projectD]: [0, 1],
      [teamD.id]: [0, 1],
    });
    expect(await outcomes(earlier, scopes)).toEqual(kept);
    expect((await portfolio.getActionQueue({}, readerD)).gateBlocked.map((p) => p.projectId)).toEqual([projectD]);

    // The trend of team D's reader: passed the earlier day, blocked the next.
    const trend = await portfolio.getTrends({ interval: "day", points: 4 }, readerD);
    expect(trend.buckets.slice(0, 2).map((b) => [b.periodStart, b.gatePassed, b.gateBlocked])).toEqual([
      [iso(earlier), 1, 0],
      [iso(later), 0, 1],
    ]);
  });
});
