// The dashboards (docs/dashboards.md): portfolio overview, action queue, teams by risk and trends under /v1/dashboard
// (the prefix is ours; the spec shows the shapes only). Their figures are projects' kept rows (PortfolioService);
// the approvals still to decide are policy's, asked as the caller. Every route counts against one bucket per actor
// (DASHBOARD_RATE_LIMIT): 429 with Retry-After past it.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { CallOptions } from "@connectrpc/connect";
import { z } from "zod";
import type { LicenseCategoryCounts, QueuedProject, SeverityCounts } from "@sca/proto/sca/projects/v1/portfolio_pb.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { authenticatedOf } from "../../http/authenticate.ts";
import { approvalJson, approvalSchema } from "../policy/approval-views.ts";

const TAGS = ["dashboard"];
const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);
const count = () => z.number().int();

const REACHES = ["organization", "teams"] as const;
const reachSchema = z.enum(REACHES).meta({
  description:
    "organization: every project of the caller's organizations (super_admin: all; an organization-scoped API key: " +
    "its organization); teams: the projects of the caller's teams",
});
const severitySchema = z
  .object({ critical: count(), high: count(), medium: count(), low: count(), unknown: count() })
  .meta({ id: "DashboardSeverityCounts", description: "Open findings of the newest snapshots by severity" });
const licenseSchema = z
  .object({ allowed: count(), conditional: count(), forbidden: count(), uncategorized: count() })
  .meta({
    id: "DashboardLicenseCategoryCounts",
    description: "Components of the newest snapshots by license category",
  });
const severities = (s: SeverityCounts | undefined) => ({
  critical: s?.critical ?? 0,
  high: s?.high ?? 0,
  medium: s?.medium ?? 0,
  low: s?.low ?? 0,
  unknown: s?.unknown ?? 0,
});
const licenses = (l: LicenseCategoryCounts | undefined) => ({
  allowed: l?.allowed ?? 0,
  conditional: l?.conditional ?? 0,
  forbidden: l?.forbidden ?? 0,
  uncategorized: l?.uncategorized ?? 0,
});

const overviewSchema = z
  .object({
    reach: reachSchema,
    project_count: count().meta({ description: "Active (not archived) projects in reach" }),
    pending_approvals_count: count()
      .nullable()
      .meta({ description: "Approval requests pending or under_review in reach; null for an API key" }),
    license_category_counts: licenseSchema,
    scan_status_counts: z
      .record(z.string(), count())
      .meta({ description: "Projects by their newest scan's status (never scanned: not counted)" }),
    vulnerability_severity_counts: severitySchema,
    known_exploited_count: count().meta({ description: "Open findings on the known-exploited catalog" }),
    recent_scans: z
      .array(
        z.object({
          scan_id: z.uuid(),
          project_id: z.uuid(),
          project_name: z.string(),
          status: z.string(),
          release: z.string().nullable(),
          created_at: z.iso.datetime(),
          completed_at: z.iso.datetime().nullable(),
        }),
      )
      .meta({ description: "The 10 most recent scans in reach, newest first" }),
  })
  .meta({ id: "PortfolioOverview" });

const queuedSchema = z
  .object({
    project_id: z.uuid(),
    project_name: z.string(),
    team_id: z.uuid(),
    risk_score: count(),
    critical: count(),
    forbidden_licenses: count(),
    malicious: count(),
    known_exploited: count(),
    kev_oldest_due_date: z
      .string()
      .nullable()
      .meta({ description: "YYYY-MM-DD, earliest due date of its open KEV findings" }),
    last_scanned_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "QueuedProject" });
const queued = (q: QueuedProject) => ({
  project_id: q.projectId,
  project_name: q.projectName,
  team_id: q.teamId,
  risk_score: q.riskScore,
  critical: q.critical,
  forbidden_licenses: q.forbiddenLicenses,
  malicious: q.malicious,
  known_exploited: q.knownExploited,
  kev_oldest_due_date: q.kevOldestDueDate || null,
  last_scanned_at: iso(q.lastScannedAt),
});
const queueList = (description: string) =>
  z.object({ count: count(), items: z.array(queuedSchema) }).meta({ description });

const actionQueueSchema = z
  .object({
    reach: reachSchema,
    gate_blocked: queueList(
      "Projects the default gate rules block (an open critical finding, a forbidden license, a malicious package), " +
        "riskiest first",
    ),
    kev_sla: queueList("Projects with open known-exploited findings, earliest catalog due date first"),
    pending_approvals: z
      .object({ count: count(), items: z.array(approvalSchema) })
      .nullable()
      .meta({ description: "Approval requests pending or under_review, newest first; null for an API key" }),
    stale_projects: queueList("Projects whose newest succeeded scan is older than stale_after_days, or never scanned"),
    stale_after_days: count(),
  })
  .meta({ id: "ActionQueue" });

const teamsByRiskSchema = z
  .object({
    reach: reachSchema,
    team_count: count().meta({ description: "Teams in reach with at least one active project" }),
    project_count: count(),
    shown_team_count: count(),
    shown_project_count: count(),
    truncated: z.boolean().meta({ description: "More teams than the cap (50) are in reach" }),
    teams: z.array(
      z.object({
        team_id: z.uuid(),
        team_name: z.string(),
        project_count: count(),
        risk_score: count().meta({ description: "Its riskiest project's risk_score (0..100)" }),
        gate_blocked: count(),
        vulnerability_severity_counts: severitySchema,
        known_exploited: count(),
        forbidden_licenses: count(),
      }),
    ),
  })
  .meta({ id: "TeamsByRisk" });

const INTERVALS = ["day", "week", "month"] as const;
const trendsSchema = z
  .object({
    reach: reachSchema,
    interval: z.enum(INTERVALS),
    buckets: z.array(
      z.object({
        period_start: z.string().meta({ description: "YYYY-MM-DD, the bucket's first day (weeks start Monday)" }),
        measured_on: z
          .string()
          .nullable()
          .meta({ description: "The bucket's last recorded day, whose figures it shows; null: none recorded" }),
        project_count: count(),
        vulnerability_severity_counts: severitySchema,
        license_category_counts: licenseSchema,
        known_exploited: count(),
        gate_blocked: count().meta({
          description: "Projects whose gate failed, judged by the policy in effect for each (its team's)",
        }),
        gate_passed: z
          .number()
          .int()
          .nullable()
          .meta({ description: "Projects whose gate passed by that policy; null: the day was recorded unjudged" }),
        open_findings: count(),
        fixed_findings: count().meta({ description: "Findings no longer open, ever (cumulative)" }),
        mean_days_to_remediate: z.number().nullable(),
      }),
    ),
  })
  .meta({ id: "DashboardTrends" });

export function dashboardRoutes(ctx: GatewayContext): Route[] {
  const portfolio = ctx.clients.projects.portfolio;
  const approvals = ctx.clients.policy.approvals;
  const auth = ctx.auth.route("caller");
  const rule = ctx.config.DASHBOARD_RATE_LIMIT;
  const limit = ctx.rateLimit({
    name: "dashboard",
    ...rule,
    key: (req) => {
      const { caller } = authenticatedOf(req);
      return caller.user_id ?? caller.api_key_id ?? "";
    },
  });
  const limited = `Rate limited per actor: ${rule.limit} per ${rule.windowSeconds} s over every dashboard route together (DASHBOARD_RATE_LIMIT).`;
  const common = {
    tags: TAGS,
    auth,
    middleware: [limit],
  };
  const responses = {
    403: problemResponse("A project-scoped API key"),
    429: problemResponse("Over DASHBOARD_RATE_LIMIT; Retry-After says when to try again"),
  };
  /** Approvals still to decide in the caller's teams: people only (the approvals list refuses API keys). */
  async function pendingApprovals(req: Parameters<typeof authenticatedOf>[0], call: CallOptions, size: number) {
    if (authenticatedOf(req).caller.kind !== "user") return null;
    const list = await approvals.listApprovals(
      { filter: { status: ["pending", "under_review"] }, page: { page: 1, pageSize: size } },
      call,
    );
    return { count: list.page?.total ?? 0, items: list.items.map(approvalJson) };
  }
  return [
    defineRoute({
      ...common,
      method: "get",
      path: "/v1/dashboard/overview",
      summary: "The portfolio overview",
      description: `Counts over the projects in the caller's reach. ${limited}`,
      operationId: "getPortfolioOverview",
      request: {},
      responses: { 200: { description: "The overview", schema: overviewSchema }, ...responses },
      handler: async ({ req, call }) => {
        const [o, pending] = await Promise.all([
          portfolio.getPortfolioOverview({}, call),
          pendingApprovals(req, call, 1),
        ]);
        return {
          status: 200,
          body: {
            reach: o.reach as (typeof REACHES)[number],
            project_count: o.projectCount,
            pending_approvals_count: pending?.count ?? null,
            license_category_counts: licenses(o.licenseCategoryCounts),
            scan_status_counts: o.scanStatusCounts,
            vulnerability_severity_counts: severities(o.vulnerabilitySeverityCounts),
            known_exploited_count: o.knownExploitedCount,
            recent_scans: o.recentScans.map((s) => ({
              scan_id: s.scanId,
              project_id: s.projectId,
              project_name: s.projectName,
              status: s.status,
              release: s.release ?? null,
              created_at: iso(s.createdAt)!,
              completed_at: iso(s.completedAt),
            })),
          },
        };
      },
    }),
    defineRoute({
      ...common,
      method: "get",
      path: "/v1/dashboard/action-queue",
      summary: "The action queue",
      description: `What to do first, each list capped at limit (default 10, at most 100) with its full count. ${limited}`,
      operationId: "getActionQueue",
      request: { query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(10) }) },
      responses: { 200: { description: "The action queue", schema: actionQueueSchema }, ...responses },
      handler: async ({ req, query, call }) => {
        const [q, pending] = await Promise.all([
          portfolio.getActionQueue({ limit: query.limit }, call),
          pendingApprovals(req, call, query.limit),
        ]);
        return {
          status: 200,
          body: {
            reach: q.reach as (typeof REACHES)[number],
            gate_blocked: { count: q.gateBlockedCount, items: q.gateBlocked.map(queued) },
            kev_sla: { count: q.kevSlaCount, items: q.kevSla.map(queued) },
            pending_approvals: pending,
            stale_projects: { count: q.staleProjectCount, items: q.staleProjects.map(queued) },
            stale_after_days: q.staleAfterDays,
          },
        };
      },
    }),
    defineRoute({
      ...common,
      method: "get",
      path: "/v1/dashboard/teams-by-risk",
      summary: "Teams by risk",
      description: `The teams in reach, riskiest first, at most 50 (truncated past it). ${limited}`,
      operationId: "listTeamsByRisk",
      request: {},
      responses: { 200: { description: "Teams by risk", schema: teamsByRiskSchema }, ...responses },
      handler: async ({ call }) => {
        const t = await portfolio.listTeamsByRisk({}, call);
        return {
          status: 200,
          body: {
            reach: t.reach as (typeof REACHES)[number],
            team_count: t.teamCount,
            project_count: t.projectCount,
            shown_team_count: t.shownTeamCount,
            shown_project_count: t.shownProjectCount,
            truncated: t.truncated,
            teams: t.teams.map((x) => ({
              team_id: x.teamId,
              team_name: x.teamName,
              project_count: x.projectCount,
              risk_score: x.riskScore,
              gate_blocked: x.gateBlocked,
              vulnerability_severity_counts: severities(x.vulnerabilitySeverityCounts),
              known_exploited: x.knownExploited,
              forbidden_licenses: x.forbiddenLicenses,
            })),
          },
        };
      },
    }),
    defineRoute({
      ...common,
      method: "get",
      path: "/v1/dashboard/trends",
      summary: "Trends",
      description:
        "The daily rows of the reach (organization rows, or the caller's teams' rows summed) in day, week or month " +
        "buckets, oldest first; each bucket shows its last recorded day. points: buckets (default 30 days, 12 weeks, " +
        `12 months; at most 366). ${limited}`,
      operationId: "getTrends",
      request: {
        query: z.object({
          interval: z.enum(INTERVALS).default("day"),
          points: z.coerce.number().int().min(1).max(366).optional(),
        }),
      },
      responses: { 200: { description: "The trend buckets", schema: trendsSchema }, ...responses },
      handler: async ({ query, call }) => {
        const t = await portfolio.getTrends({ interval: query.interval, points: query.points ?? 0 }, call);
        return {
          status: 200,
          body: {
            reach: t.reach as (typeof REACHES)[number],
            interval: t.interval as (typeof INTERVALS)[number],
            buckets: t.buckets.map((b) => ({
              period_start: b.periodStart,
              measured_on: b.measuredOn || null,
              project_count: b.projectCount,
              vulnerability_severity_counts: severities(b.vulnerabilitySeverityCounts),
              license_category_counts: licenses(b.licenseCategoryCounts),
              known_exploited: b.knownExploited,
              gate_blocked: b.gateBlocked,
              gate_passed: b.gatePassed ?? null,
              open_findings: b.openFindings,
              fixed_findings: b.fixedFindings,
              mean_days_to_remediate: b.meanDaysToRemediate ?? null,
            })),
          },
        };
      },
    }),
  ];
}
