// The dashboards' rules (docs/dashboards.md): whose figures a caller sees, what blocks a project at the gate as the
// dashboards count it, when a project is stale, how trend buckets are cut, and the caps of each answer.
import { ProblemError, type FieldViolation } from "@sca/problem";
import { isSuperAdmin, type Caller } from "@sca/rpc";

/**
 * The figures a caller sees. super_admin: every organization. An organization-scoped API key (the organization-wide
 * viewer): its organization. Everyone else: the teams they are members of (memberships arrive cascaded to subgroups).
 */
export type DashboardReach =
  { kind: "all" } | { kind: "organizations"; ids: string[] } | { kind: "teams"; ids: string[] };

/** The caller's reach; a project-scoped API key sees no dashboard (403): a team's figures would leak past its grant. */
export function dashboardReach(caller: Caller): DashboardReach {
  if (isSuperAdmin(caller)) return { kind: "all" };
  const grant = caller.kind === "api_key" ? caller.api_key : null;
  if (grant?.scope === "project")
    throw ProblemError.forbidden("A project-scoped API key cannot read the portfolio dashboards.");
  if (grant?.scope === "org" && grant.organization_id) return { kind: "organizations", ids: [grant.organization_id] };
  return { kind: "teams", ids: [...new Set(caller.memberships.map((m) => m.team_id))] };
}

/** "organization" when the reach is whole organizations, else "teams": what the answer's figures cover. */
export const reachName = (reach: DashboardReach): string => (reach.kind === "teams" ? "teams" : "organization");

/**
 * Whether the build gate's default rules block a project (the spec's gate verdict: a critical open finding, a
 * forbidden license, a malicious package); the dashboards count by these, not by each team's gate policy.
 */
export function gateBlocks(f: { critical: number; licenseForbidden: number; malicious: number }): boolean {
  return f.critical > 0 || f.licenseForbidden > 0 || f.malicious > 0;
}

/** A project whose newest succeeded scan is older than this (or that never succeeded) is stale. */
export const STALE_AFTER_DAYS = 30;
/** Items per list of the action queue: the default and the most. */
export const QUEUE_LIMIT_DEFAULT = 10;
export const QUEUE_LIMIT_MAX = 100;
/** Teams by risk lists at most this many teams, the riskiest first; truncated past it. */
export const TEAMS_BY_RISK_CAP = 50;
/** The overview's recent scans. */
export const RECENT_SCANS = 10;

export function queueLimitOf(limit: number, v: FieldViolation[]): number {
  if (limit === 0) return QUEUE_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > QUEUE_LIMIT_MAX)
    v.push({ path: "limit", message: `between 1 and ${QUEUE_LIMIT_MAX}` });
  return limit;
}

export const TREND_INTERVALS = ["day", "week", "month"] as const;
export type TrendInterval = (typeof TREND_INTERVALS)[number];
/** Buckets per interval by default, and the most any request may ask. */
export const TREND_POINTS_DEFAULT: Record<TrendInterval, number> = { day: 30, week: 12, month: 12 };
export const TREND_POINTS_MAX = 366;

export function trendRequestOf(
  interval: string,
  points: number,
  v: FieldViolation[],
): { interval: TrendInterval; points: number } {
  const chosen = (interval || "day") as TrendInterval;
  if (!TREND_INTERVALS.includes(chosen)) v.push({ path: "interval", message: TREND_INTERVALS.join(", ") });
  if (points !== 0 && (!Number.isInteger(points) || points < 1 || points > TREND_POINTS_MAX))
    v.push({ path: "points", message: `between 1 and ${TREND_POINTS_MAX}` });
  return { interval: chosen, points: points || (TREND_POINTS_DEFAULT[chosen] ?? 30) };
}

const DAY_MS = 86_400_000;
/** YYYY-MM-DD of a date (UTC). */
export const isoDate = (d: Date): string => d.toISOString().slice(0, 10);

/** The first day (UTC) of the bucket holding `day`: weeks start on Monday (ISO 8601), months on the 1st. */
export function bucketStart(day: string, interval: TrendInterval): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (interval === "week") return isoDate(new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS));
  if (interval === "month") return `${day.slice(0, 7)}-01`;
  return day;
}

/** The `points` buckets ending with the one holding `today`, oldest first (their first days). */
export function bucketStarts(today: string, interval: TrendInterval, points: number): string[] {
  const starts: string[] = [];
  let start = bucketStart(today, interval);
  for (let i = 0; i < points; i++) {
    starts.unshift(start);
    const before = new Date(new Date(`${start}T00:00:00Z`).getTime() - DAY_MS);
    start = bucketStart(isoDate(before), interval);
  }
  return starts;
}

/**
 * Each bucket shows the figures of its last recorded day (counts are levels, not flows: summing a week's days would
 * count a finding seven times). `days` holds the recorded days, any order; null for a bucket with none.
 */
export function measuredDays(
  starts: readonly string[],
  days: readonly string[],
  interval: TrendInterval,
): (string | null)[] {
  const last = new Map<string, string>();
  for (const day of days) {
    const start = bucketStart(day, interval);
    if ((last.get(start) ?? "") < day) last.set(start, day);
  }
  return starts.map((s) => last.get(s) ?? null);
}
