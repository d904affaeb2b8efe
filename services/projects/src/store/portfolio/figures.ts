// The kept rows the dashboards read (docs/dashboards.md): a project's figures counted from its newest snapshot alone
// (one project's findings over the (scan_id, vulnerability_id) index, never the portfolio's), its fixed findings, and
// the append-only daily rows. Raw SQL (ADR 5): counts grouped in PostgreSQL, no finding reaches us.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, rawStatement, type RowOf } from "@sca/db";
import { gateBlocks } from "../../domain/dashboards.ts";
import { CLOSING_STATES } from "../../domain/gate-facts.ts";
import { overviewFigures } from "../../domain/project-overview.ts";
import { findingWritesSql } from "../findings/relations.ts";
import { componentGroupsOf } from "../inventory/summary.ts";

const CLOSING = JSON.stringify(CLOSING_STATES);

/**
 * The open findings of the named snapshots (not dated removed, triage not closing them), with their triage row's
 * first detection (null without one); parameters: the scan ids (a JSON array), closing states.
 */
const OPEN_OF_SNAPSHOTS = `select f.project_id, f.component_key, f.vulnerability_id, v.severity, v.known_exploited,
    v.kev_due_date, v.epss_score, t.first_detected_at
  from vulnerability_findings f
  join vulnerabilities v on v.id = f.vulnerability_id
  left join finding_triage t on t.project_id = f.project_id and t.component_key = f.component_key
    and t.vulnerability_id = f.vulnerability_id
  where f.scan_id in (select value::uuid from jsonb_array_elements_text(?::jsonb)) and f.removed_at is null
    and coalesce(t.status, 'in_triage') not in (select jsonb_array_elements_text(?::jsonb))`;

/** The named project ids (a JSON array parameter) as a relation. */
const PROJECT_IDS = `select value::uuid from jsonb_array_elements_text(?::jsonb)`;

/**
 * Counts the projects' figures again from each one's newest snapshot and keeps them (project_figures), in the
 * caller's transaction: after an ingestion's success, a match, a re-match, a re-categorisation, a triage change, a
 * deletion. A finding of a project that is no longer open is dated fixed once (finding_fixes); one open again loses
 * its date. A fixed number of statements for any number of projects: a re-match touching a hundred projects costs
 * no more round trips than one, and a loaded machine's scheduling delay is paid per round trip (issue 33).
 */
export async function refreshProjectFigures(em: EntityManager, projectIds: readonly string[]): Promise<void> {
  if (projectIds.length === 0) return;
  const ids = JSON.stringify([...new Set(projectIds)]);
  const newest = await rawQuery(
    em,
    `select distinct on (project_id) project_id, scan_id, ingested_at from inventory_snapshots
      where project_id in (${PROJECT_IDS})
      order by project_id, ingested_at desc, scan_id desc`,
    [ids],
    { projectId: column.text, scanId: column.text, ingestedAt: column.timestamp },
  );
  await rawStatement(
    em,
    `delete from project_figures where project_id in (${PROJECT_IDS})
       and project_id not in (select value::uuid from jsonb_array_elements_text(?::jsonb))`,
    [ids, JSON.stringify(newest.map((n) => n.projectId))],
  );
  if (newest.length === 0) return;
  const counted = JSON.stringify(newest.map((n) => n.projectId));
  const scans = JSON.stringify(newest.map((n) => n.scanId));
  // Set operations, not correlated (NOT) EXISTS: each side is read once whatever the planner believes of the rows.
  // A snapshot written since the last ANALYZE is estimated at one row, and an anti-join planned as a nested loop
  // over it read the open findings again for every triage row: seconds per project on a busy machine (issue 33).
  await rawStatement(
    em,
    `delete from finding_fixes x
     using (select project_id, component_key, vulnerability_id from finding_fixes where project_id in (${PROJECT_IDS})
            intersect select o.project_id, o.component_key, o.vulnerability_id from (${OPEN_OF_SNAPSHOTS}) o) back
     where x.project_id = back.project_id and x.component_key = back.component_key
       and x.vulnerability_id = back.vulnerability_id`,
    [counted, scans, CLOSING],
  );
  // A triage row's pair open in the snapshot has the same first detection on both sides, so EXCEPT leaves the fixed.
  await rawStatement(
    em,
    `insert into finding_fixes (project_id, component_key, vulnerability_id, first_detected_at, fixed_at)
     select gone.project_id, gone.component_key, gone.vulnerability_id, gone.first_detected_at, now()
     from (select project_id, component_key, vulnerability_id, first_detected_at from finding_triage
             where project_id in (${PROJECT_IDS})
           except select o.project_id, o.component_key, o.vulnerability_id, o.first_detected_at
             from (${OPEN_OF_SNAPSHOTS}) o) gone
     on conflict do nothing`,
    [counted, scans, CLOSING],
  );
  const open = await rawQuery(
    em,
    `select o.project_id,
            count(*) filter (where severity = 'critical') as critical,
            count(*) filter (where severity = 'high') as high,
            count(*) filter (where severity = 'medium') as medium,
            count(*) filter (where severity = 'low') as low,
            count(*) filter (where severity not in ('critical', 'high', 'medium', 'low')) as unknown,
            count(*) filter (where known_exploited) as known_exploited,
            coalesce(min(kev_due_date) filter (where known_exploited and kev_due_date <> ''), '') as kev_oldest_due_date,
            count(*) as open_findings, max(epss_score) as epss_max, count(epss_score) as epss_scored
       from (${OPEN_OF_SNAPSHOTS}) o group by o.project_id`,
    [scans, CLOSING],
    {
      projectId: column.text,
      critical: column.integer,
      high: column.integer,
      medium: column.integer,
      low: column.integer,
      unknown: column.integer,
      knownExploited: column.integer,
      kevOldestDueDate: column.text,
      openFindings: column.integer,
      epssMax: column.number.nullable,
      epssScored: column.integer,
    },
  );
  const kept = await rawQuery(
    em,
    `select n.project_id,
            (select count(*) from finding_fixes where project_id = n.project_id) as fixed_findings,
            (select coalesce(sum(extract(epoch from fixed_at - first_detected_at)) / 86400, 0) from finding_fixes
              where project_id = n.project_id) as remediation_days_total,
            ${findingWritesSql("n.scan_id", "n.project_id")} as finding_writes
       from jsonb_to_recordset(?::jsonb) as n(project_id uuid, scan_id uuid)`,
    [JSON.stringify(newest.map((n) => ({ project_id: n.projectId, scan_id: n.scanId })))],
    {
      projectId: column.text,
      fixedFindings: column.integer,
      remediationDaysTotal: column.number,
      findingWrites: column.integer,
    },
  );
  const groups = await componentGroupsOf(
    em,
    newest.map((n) => n.scanId),
  );
  const openOf = new Map(open.map((o) => [o.projectId, o]));
  const keptOf = new Map(kept.map((k) => [k.projectId, k]));
  const rows = newest.map((n) => {
    const o = openOf.get(n.projectId);
    const k = keptOf.get(n.projectId);
    const components = overviewFigures(groups.get(n.scanId) ?? []);
    const license = components.licenseDistribution;
    const f = {
      critical: o?.critical ?? 0,
      high: o?.high ?? 0,
      medium: o?.medium ?? 0,
      low: o?.low ?? 0,
      unknown: o?.unknown ?? 0,
      knownExploited: o?.knownExploited ?? 0,
      kevOldestDueDate: o?.kevOldestDueDate ?? "",
      openFindings: o?.openFindings ?? 0,
      licenseForbidden: license.forbidden ?? 0,
      malicious: components.maliciousCount,
    };
    return [
      n.projectId,
      n.scanId,
      n.ingestedAt,
      components.riskScore,
      gateBlocks(f),
      f.kevOldestDueDate,
      k?.remediationDaysTotal ?? 0,
      f.critical,
      f.high,
      f.medium,
      f.low,
      f.unknown,
      f.knownExploited,
      license.allowed ?? 0,
      license.conditional ?? 0,
      f.licenseForbidden,
      license.uncategorized ?? 0,
      f.malicious,
      f.openFindings,
      k?.fixedFindings ?? 0,
      k?.findingWrites ?? 0,
      o?.epssMax ?? null,
      o?.epssScored ?? 0,
    ];
  });
  await rawStatement(
    em,
    `insert into project_figures (project_id, scan_id, scanned_at, risk_score, gate_blocked, kev_oldest_due_date,
       remediation_days_total, critical, high, medium, low, unknown, known_exploited, license_allowed,
       license_conditional, license_forbidden, license_uncategorized, malicious, open_findings, fixed_findings,
       finding_writes, epss_max, epss_scored, counted_at)
     values ${rows.map((r) => `(${r.map(() => "?").join(", ")}, now())`).join(", ")}
     on conflict (project_id) do update set scan_id = excluded.scan_id, scanned_at = excluded.scanned_at,
       risk_score = excluded.risk_score, gate_blocked = excluded.gate_blocked,
       kev_oldest_due_date = excluded.kev_oldest_due_date, remediation_days_total = excluded.remediation_days_total,
       critical = excluded.critical, high = excluded.high, medium = excluded.medium, low = excluded.low,
       unknown = excluded.unknown, known_exploited = excluded.known_exploited,
       license_allowed = excluded.license_allowed, license_conditional = excluded.license_conditional,
       license_forbidden = excluded.license_forbidden, license_uncategorized = excluded.license_uncategorized,
       malicious = excluded.malicious, open_findings = excluded.open_findings,
       fixed_findings = excluded.fixed_findings, finding_writes = excluded.finding_writes,
       epss_max = excluded.epss_max, epss_scored = excluded.epss_scored, counted_at = now(),
       -- The judged outcome holds while the facts the gate reads are those it judged (docs/dashboards.md).
       gate_outcome = case when (project_figures.critical, project_figures.license_forbidden, project_figures.malicious,
           project_figures.open_findings, project_figures.epss_scored, project_figures.epss_max)
         is not distinct from (excluded.critical, excluded.license_forbidden, excluded.malicious,
           excluded.open_findings, excluded.epss_scored, excluded.epss_max)
         then project_figures.gate_outcome end`,
    rows.flat(),
  );
}

/**
 * Projects whose kept figures are behind their writes: a snapshot came or went, or their findings, triage or the
 * vulnerabilities were written since they were counted. At most `limit`, the daily job's batch.
 */
export async function projectsBehind(em: EntityManager, limit: number, afterId: string): Promise<string[]> {
  const rows = await rawQuery(
    em,
    `select p.id from projects p
       left join project_figures g on g.project_id = p.id
       left join lateral (select scan_id from inventory_snapshots where project_id = p.id
                           order by ingested_at desc, scan_id desc limit 1) s on true
      where p.archived_at is null and p.id > ?::uuid
        and (g.project_id is null and s.scan_id is not null
             or g.project_id is not null and (g.scan_id is distinct from s.scan_id
                  or g.finding_writes <> ${findingWritesSql("s.scan_id", "p.id")}))
      order by p.id limit ?`,
    [afterId, limit],
    { id: column.text },
  );
  return rows.map((r) => r.id);
}

/** The sums a daily row of a team or an organization carries, over its projects' figures. */
const SUMS = `count(*) as project_count, count(*) filter (where g.gate_blocked) as gate_blocked,
  coalesce(max(g.risk_score), 0) as risk_score,
  case when sum(g.fixed_findings) > 0 then sum(g.remediation_days_total) / sum(g.fixed_findings) end
    as mean_days_to_remediate,
  sum(g.critical) as critical, sum(g.high) as high, sum(g.medium) as medium, sum(g.low) as low,
  sum(g.unknown) as unknown, sum(g.known_exploited) as known_exploited, sum(g.license_allowed) as license_allowed,
  sum(g.license_conditional) as license_conditional, sum(g.license_forbidden) as license_forbidden,
  sum(g.license_uncategorized) as license_uncategorized, sum(g.malicious) as malicious,
  sum(g.open_findings) as open_findings, sum(g.fixed_findings) as fixed_findings,
  count(*) filter (where g.gate_outcome = 'pass') as gate_passed,
  count(*) filter (where g.gate_outcome = 'fail') as gate_failed`;
const COLUMNS = `project_count, gate_blocked, risk_score, mean_days_to_remediate, critical, high, medium, low, unknown,
  known_exploited, license_allowed, license_conditional, license_forbidden, license_uncategorized, malicious,
  open_findings, fixed_findings, gate_passed, gate_failed`;
/** The organization of a project with none (a single-organization deployment): the nil UUID. */
export const NO_ORGANIZATION = "00000000-0000-0000-0000-000000000000";
const ACTIVE_FIGURES = "from project_figures g join projects p on p.id = g.project_id where p.archived_at is null";

const GATE_FIGURES = {
  projectId: column.text,
  teamId: column.text,
  organizationId: column.text.nullable,
  critical: column.integer,
  licenseForbidden: column.integer,
  malicious: column.integer,
  openFindings: column.integer,
  epssScored: column.integer,
  epssMax: column.number.nullable,
};
/** What the gate's checks need of a project's newest snapshot, read from its kept figures. */
export type GateFiguresRow = RowOf<typeof GATE_FIGURES>;

/**
 * The gate's inputs, from the kept figures: of the active projects that have no row of `day` yet, by id after
 * `afterId` (at most `limit`: the daily job), or of the one active project `projectId` (a scan's success, which
 * judges it again whether or not the day has its row). The malicious count is taken now over the snapshot's flagged
 * components alone (the gate's partial index), since a waiver expires without a write.
 */
export async function gateFiguresToJudge(
  em: EntityManager,
  which: { day: string; afterId: string; limit: number } | { projectId: string },
): Promise<GateFiguresRow[]> {
  const one = "projectId" in which;
  return rawQuery(
    em,
    `select g.project_id, p.team_id, p.organization_id, g.critical, g.license_forbidden, g.open_findings,
       g.epss_scored, g.epss_max,
       (select count(*) from inventory_components c
         where c.scan_id = g.scan_id and (c.license_category = 'forbidden' or c.malicious_state = 'flagged')
           and c.malicious_state = 'flagged'
           and (c.purl is null or c.purl not in (select w.purl from malicious_waivers w where w.project_id = g.project_id
                 and w.revoked_at is null and w.expires_at > now()))) as malicious
     ${ACTIVE_FIGURES} and ${
       one
         ? "g.project_id = ?"
         : `g.project_id > ?::uuid and not exists (select 1 from daily_metrics d
              where d.scope = 'project' and d.scope_id = g.project_id and d.day = ?::date)`
     }
     order by g.project_id limit ?`,
    one ? [which.projectId, 1] : [which.afterId, which.day, which.limit],
    GATE_FIGURES,
  );
}

/**
 * Keeps each project's judged gate outcome with its figures and writes its row of `day` unless it has one: the
 * first write of a day wins, rows are never rewritten.
 */
export async function recordProjectDays(
  em: EntityManager,
  day: string,
  judged: readonly { projectId: string; outcome: string }[],
): Promise<number> {
  if (judged.length === 0) return 0;
  await rawStatement(
    em,
    `update project_figures g set gate_outcome = j.outcome
       from jsonb_to_recordset(?::jsonb) as j(project_id uuid, outcome text) where g.project_id = j.project_id`,
    [JSON.stringify(judged.map((j) => ({ project_id: j.projectId, outcome: j.outcome })))],
  );
  return rawStatement(
    em,
    `insert into daily_metrics (scope, scope_id, day, team_id, organization_id, ${COLUMNS})
     select 'project', p.id, ?::date, p.team_id, coalesce(p.organization_id, '${NO_ORGANIZATION}'), ${SUMS}
     ${ACTIVE_FIGURES} and p.id in (${PROJECT_IDS}) group by p.id, p.team_id, p.organization_id
     on conflict do nothing`,
    [day, JSON.stringify(judged.map((j) => j.projectId))],
  );
}

/**
 * The day's rows of every team and organization that has none yet (the daily job, once its projects' rows are
 * written): two statements over the kept figures and their judged outcomes; nothing reaches this process, so its
 * memory stays flat.
 */
export async function recordTeamAndOrganizationDay(em: EntityManager, day: string): Promise<number> {
  let written = 0;
  written += await rawStatement(
    em,
    `insert into daily_metrics (scope, scope_id, day, team_id, organization_id, ${COLUMNS})
     select 'team', p.team_id, ?::date, p.team_id, min(coalesce(p.organization_id, '${NO_ORGANIZATION}')::text)::uuid,
       ${SUMS}
     ${ACTIVE_FIGURES} group by p.team_id
     on conflict do nothing`,
    [day],
  );
  written += await rawStatement(
    em,
    `insert into daily_metrics (scope, scope_id, day, team_id, organization_id, ${COLUMNS})
     select 'organization', coalesce(p.organization_id, '${NO_ORGANIZATION}'), ?::date, null,
       coalesce(p.organization_id, '${NO_ORGANIZATION}'), ${SUMS}
     ${ACTIVE_FIGURES} group by coalesce(p.organization_id, '${NO_ORGANIZATION}')
     on conflict do nothing`,
    [day],
  );
  return written;
}
