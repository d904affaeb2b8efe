// The dashboards' kept rows (docs/dashboards.md; migration PortfolioFigures).
import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/** The counts every kept row of the dashboards carries. */
const counts = () => ({
  critical: p.integer().default(0),
  high: p.integer().default(0),
  medium: p.integer().default(0),
  low: p.integer().default(0),
  unknown: p.integer().default(0),
  knownExploited: p.integer().default(0),
  licenseAllowed: p.integer().default(0),
  licenseConditional: p.integer().default(0),
  licenseForbidden: p.integer().default(0),
  licenseUncategorized: p.integer().default(0),
  malicious: p.integer().default(0),
  openFindings: p.integer().default(0),
  fixedFindings: p.integer().default(0),
});

/** A project's figures, counted from its newest snapshot whenever its findings or components change. */
export const ProjectFigures = defineEntity({
  name: "ProjectFigures",
  tableName: "project_figures",
  properties: {
    projectId: p.uuid().primary(),
    scanId: p.uuid().strictNullable(),
    scannedAt: p.datetime().strictNullable(),
    riskScore: p.integer().default(0),
    gateBlocked: p.boolean().default(false),
    /** YYYY-MM-DD, "" when no open known-exploited finding has a due date. */
    kevOldestDueDate: p.string().length(10).default(""),
    /** The sum over finding_fixes of days from first detection to fix (mean time to remediate's numerator). */
    remediationDaysTotal: p.double().default(0),
    ...counts(),
    /** The project's count of finding writes (finding_changes) when counted: the daily job recounts when it moved. */
    findingWrites: p.integer().default(0),
    /** The highest EPSS score of the open findings (null: none has one) and how many have one: the EPSS check. */
    epssMax: p.double().strictNullable(),
    epssScored: p.integer().default(0),
    /** The gate outcome policy judged last (the day's row, a scan's success); null until judged. */
    gateOutcome: p.string().length(16).strictNullable(),
    countedAt: p.datetime().defaultRaw("now()"),
  },
});

/** When a finding of a project stopped being open (no longer in the newest snapshot, or triaged closed). */
export const FindingFix = defineEntity({
  name: "FindingFix",
  tableName: "finding_fixes",
  properties: {
    projectId: p.uuid().primary(),
    componentKey: p.text().primary(),
    vulnerabilityId: p.string().length(128).primary(),
    firstDetectedAt: p.datetime(),
    fixedAt: p.datetime(),
  },
});

/** One day's figures of a project, a team or an organization: append-only, never rewritten. */
export const DailyMetric = defineEntity({
  name: "DailyMetric",
  tableName: "daily_metrics",
  properties: {
    scope: p.string().length(16).primary(),
    scopeId: p.uuid().primary(),
    day: p.date().primary(),
    teamId: p.uuid().strictNullable(),
    organizationId: p.uuid().strictNullable(),
    projectCount: p.integer().default(0),
    gateBlocked: p.integer().default(0),
    riskScore: p.integer().default(0),
    meanDaysToRemediate: p.double().strictNullable(),
    ...counts(),
    /** Projects by the gate outcome judged by their team's policy; null in rows written before it was judged. */
    gatePassed: p.integer().strictNullable(),
    gateFailed: p.integer().strictNullable(),
    recordedAt: p.datetime().defaultRaw("now()"),
  },
  indexes: [
    {
      name: "daily_metrics_team_day",
      expression: "create index daily_metrics_team_day on daily_metrics (team_id, day) where scope = 'team'",
    },
  ],
  checks: [{ name: "daily_metrics_scope_check", expression: "scope in ('project', 'team', 'organization')" }],
});

export type ProjectFiguresRow = InferEntity<typeof ProjectFigures>;
