// The dashboards' reads (docs/dashboards.md): sums over the kept project_figures rows of the projects in the caller's
// reach (a row per project, never a finding), the newest known scans, and the daily_metrics rows of the trends.
// Raw SQL (ADR 5): grouped sums PostgreSQL computes.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, type RowOf } from "@sca/db";
import { RECENT_SCANS, STALE_AFTER_DAYS, type DashboardReach } from "../../domain/dashboards.ts";
import { NO_ORGANIZATION } from "./figures.ts";

/** The reach as a condition on projects `p`, and its parameters. */
function reachSql(reach: DashboardReach): { sql: string; params: unknown[] } {
  if (reach.kind === "all") return { sql: "true", params: [] };
  const ids = JSON.stringify(reach.ids);
  return reach.kind === "organizations"
    ? {
        sql: `coalesce(p.organization_id, '${NO_ORGANIZATION}') in (select jsonb_array_elements_text(?::jsonb)::uuid)`,
        params: [ids],
      }
    : { sql: "p.team_id in (select jsonb_array_elements_text(?::jsonb)::uuid)", params: [ids] };
}

const SEVERITIES = {
  critical: column.integer,
  high: column.integer,
  medium: column.integer,
  low: column.integer,
  unknown: column.integer,
};
const LICENSES = {
  licenseAllowed: column.integer,
  licenseConditional: column.integer,
  licenseForbidden: column.integer,
  licenseUncategorized: column.integer,
};
const SUMMED = `coalesce(sum(g.critical), 0) as critical, coalesce(sum(g.high), 0) as high,
  coalesce(sum(g.medium), 0) as medium, coalesce(sum(g.low), 0) as low, coalesce(sum(g.unknown), 0) as unknown,
  coalesce(sum(g.known_exploited), 0) as known_exploited, coalesce(sum(g.license_forbidden), 0) as license_forbidden`;
/** Gate-blocked: failed as policy judged it last, else (not judged since the facts changed) the default checks. */
const GATE_BLOCKED = "coalesce(g.gate_outcome = 'fail', g.gate_blocked)";
const IN_REACH = (where: string) =>
  `from projects p left join project_figures g on g.project_id = p.id where p.archived_at is null and ${where}`;

export async function portfolioTotals(em: EntityManager, reach: DashboardReach) {
  const r = reachSql(reach);
  const [row] = await rawQuery(
    em,
    `select count(*) as project_count, ${SUMMED},
       coalesce(sum(g.license_allowed), 0) as license_allowed,
       coalesce(sum(g.license_conditional), 0) as license_conditional,
       coalesce(sum(g.license_uncategorized), 0) as license_uncategorized
     ${IN_REACH(r.sql)}`,
    r.params,
    { projectCount: column.integer, knownExploited: column.integer, ...SEVERITIES, ...LICENSES },
  );
  return row!;
}

/** Projects in reach by their newest scan's status (those never scanned are not counted). */
export async function scanStatusCounts(em: EntityManager, reach: DashboardReach): Promise<Record<string, number>> {
  const r = reachSql(reach);
  const rows = await rawQuery(
    em,
    `select p.latest_scan_status as status, count(*) as n from projects p
      where p.archived_at is null and p.latest_scan_status is not null and ${r.sql} group by 1`,
    r.params,
    { status: column.text, n: column.integer },
  );
  return Object.fromEntries(rows.map((x) => [x.status, x.n]));
}

export async function recentScans(em: EntityManager, reach: DashboardReach) {
  const r = reachSql(reach);
  return rawQuery(
    em,
    `select k.scan_id, k.project_id, p.name as project_name, k.status, k.release, k.scan_created_at, k.completed_at
       from known_scans k join projects p on p.id = k.project_id
      where k.deleted_at is null and p.archived_at is null and ${r.sql}
      order by k.scan_created_at desc, k.scan_id desc limit ?`,
    [...r.params, RECENT_SCANS],
    {
      scanId: column.text,
      projectId: column.text,
      projectName: column.text,
      status: column.text,
      release: column.text.nullable,
      scanCreatedAt: column.timestamp,
      completedAt: column.timestamp.nullable,
    },
  );
}

const QUEUED = {
  projectId: column.text,
  projectName: column.text,
  teamId: column.text,
  riskScore: column.integer,
  critical: column.integer,
  licenseForbidden: column.integer,
  malicious: column.integer,
  knownExploited: column.integer,
  kevOldestDueDate: column.text,
  scannedAt: column.timestamp.nullable,
  total: column.integer,
};
export type QueuedRow = RowOf<typeof QUEUED>;

export type QueueList = "gate_blocked" | "kev_sla" | "stale";
const QUEUE: Record<QueueList, { where: string; order: string }> = {
  gate_blocked: { where: GATE_BLOCKED, order: "g.risk_score desc, g.critical desc, p.name, p.id" },
  kev_sla: {
    where: "g.known_exploited > 0",
    order: "g.kev_oldest_due_date = '', g.kev_oldest_due_date, g.known_exploited desc, p.name, p.id",
  },
  stale: {
    where: `(g.scanned_at is null or g.scanned_at < now() - interval '${STALE_AFTER_DAYS} days')`,
    order: "g.scanned_at asc nulls first, p.name, p.id",
  },
};

/** The first `limit` projects of one list of the action queue, each row carrying the list's full count. */
export async function queuedProjects(
  em: EntityManager,
  reach: DashboardReach,
  list: QueueList,
  limit: number,
): Promise<QueuedRow[]> {
  const r = reachSql(reach);
  return rawQuery(
    em,
    `select p.id as project_id, p.name as project_name, p.team_id, coalesce(g.risk_score, 0) as risk_score,
       coalesce(g.critical, 0) as critical, coalesce(g.license_forbidden, 0) as license_forbidden,
       coalesce(g.malicious, 0) as malicious, coalesce(g.known_exploited, 0) as known_exploited,
       coalesce(g.kev_oldest_due_date, '') as kev_oldest_due_date, g.scanned_at, count(*) over () as total
     ${IN_REACH(r.sql)} and ${QUEUE[list].where}
     order by ${QUEUE[list].order} limit ?`,
    [...r.params, limit],
    QUEUED,
  );
}

/** Teams in reach, riskiest first (the riskiest project's score, then gate-blocked projects, then criticals). */
export async function teamsByRisk(em: EntityManager, reach: DashboardReach, cap: number) {
  const r = reachSql(reach);
  return rawQuery(
    em,
    `select p.team_id, count(*) as project_count, coalesce(max(g.risk_score), 0) as risk_score,
       count(*) filter (where ${GATE_BLOCKED}) as gate_blocked, ${SUMMED},
       count(*) over () as team_count, sum(count(*)) over () as portfolio_project_count
     ${IN_REACH(r.sql)} group by p.team_id
     order by risk_score desc, gate_blocked desc, critical desc, p.team_id limit ?`,
    [...r.params, cap + 1],
    {
      teamId: column.text,
      projectCount: column.integer,
      riskScore: column.integer,
      gateBlocked: column.integer,
      knownExploited: column.integer,
      ...SEVERITIES,
      licenseForbidden: column.integer,
      teamCount: column.integer,
      portfolioProjectCount: column.integer,
    },
  );
}

/**
 * The daily rows of the reach between two days, summed per day: organization rows for whole organizations, team
 * rows for a member's teams. Mean time to remediate is weighted by each row's fixed findings.
 */
export async function dailyFigures(em: EntityManager, reach: DashboardReach, from: string, to: string) {
  const scope =
    reach.kind === "all"
      ? { sql: "scope = 'organization'", params: [] as unknown[] }
      : {
          sql: `scope = '${reach.kind === "teams" ? "team" : "organization"}'
                and scope_id in (select jsonb_array_elements_text(?::jsonb)::uuid)`,
          params: [JSON.stringify(reach.ids)],
        };
  return rawQuery(
    em,
    `select to_char(day, 'YYYY-MM-DD') as day, sum(project_count) as project_count,
       sum(coalesce(gate_failed, gate_blocked)) as gate_blocked, sum(gate_passed) as gate_passed,
       sum(critical) as critical, sum(high) as high, sum(medium) as medium, sum(low) as low, sum(unknown) as unknown,
       sum(known_exploited) as known_exploited, sum(license_allowed) as license_allowed,
       sum(license_conditional) as license_conditional, sum(license_forbidden) as license_forbidden,
       sum(license_uncategorized) as license_uncategorized, sum(open_findings) as open_findings,
       sum(fixed_findings) as fixed_findings,
       sum(mean_days_to_remediate * fixed_findings) filter (where mean_days_to_remediate is not null)
         / nullif(sum(fixed_findings) filter (where mean_days_to_remediate is not null), 0) as mean_days_to_remediate
     from daily_metrics where ${scope.sql} and day between ?::date and ?::date group by day order by day`,
    [...scope.params, from, to],
    {
      day: column.text,
      projectCount: column.integer,
      gateBlocked: column.integer,
      gatePassed: column.integer.nullable,
      ...SEVERITIES,
      knownExploited: column.integer,
      ...LICENSES,
      openFindings: column.integer,
      fixedFindings: column.integer,
      meanDaysToRemediate: column.number.nullable,
    },
  );
}
