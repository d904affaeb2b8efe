// The governance band's figures projects computes (docs/governance.md): the KEV due-date state of the open findings
// and the trend over the project's recent snapshots. Pure: counts in, figures out.

/** How many of the newest succeeded snapshots the trend shows. */
export const TREND_SNAPSHOTS = 10;
/** A known-exploited finding whose due date is at most this many days away is due soon. */
export const KEV_DUE_SOON_DAYS = 7;

export type KevSlaState = "none" | "on_track" | "due_soon" | "overdue";

export interface KevCounts {
  open: number;
  overdue: number;
  dueSoon: number;
}

/** The worst that applies: any overdue, else any due soon, else on track; none without open KEV findings. */
export function kevSlaState(c: KevCounts): KevSlaState {
  if (c.open === 0) return "none";
  if (c.overdue > 0) return "overdue";
  if (c.dueSoon > 0) return "due_soon";
  return "on_track";
}

/** YYYY-MM-DD of the UTC day `days` after `from`. */
export function isoDay(from: Date, days = 0): string {
  return new Date(from.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

export type TrendDirection = "worsening" | "improving" | "steady" | "unknown";

export interface TrendFigures {
  riskScore: number;
  openFindings: number;
}

/**
 * The newest snapshot against the one before it (points oldest first): a higher risk score is worsening, a lower
 * one improving; at the same score, more open findings is worsening, fewer improving. Fewer than two: unknown.
 */
export function trendDirection(points: readonly TrendFigures[]): TrendDirection {
  if (points.length < 2) return "unknown";
  const before = points[points.length - 2]!;
  const newest = points[points.length - 1]!;
  const delta = newest.riskScore - before.riskScore || newest.openFindings - before.openFindings;
  return delta > 0 ? "worsening" : delta < 0 ? "improving" : "steady";
}
