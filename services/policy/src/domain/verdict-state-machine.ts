// The life of an organization verdict (docs/approvals.md, "Organization verdicts"). The spec names only the target
// values of a move (under_review, approved, rejected); ours: a ruling starts under_review, and may move to any other
// of the three, so a decided ruling can be reopened or reversed when new facts arrive. Moving to the status it
// already has is refused (nothing would change).

export const VERDICT_STATUSES = ["under_review", "approved", "rejected"] as const;
export type VerdictStatus = (typeof VERDICT_STATUSES)[number];

export const VERDICT_INITIAL: VerdictStatus = "under_review";

export const JUSTIFICATION_MIN = 10;
export const JUSTIFICATION_MAX = 4000;

export function isVerdictStatus(value: string): value is VerdictStatus {
  return (VERDICT_STATUSES as readonly string[]).includes(value);
}

export type VerdictMove =
  { ok: true; to: VerdictStatus; decides: boolean } | { ok: false; allowed: readonly VerdictStatus[] };

export function moveVerdict(from: VerdictStatus, to: VerdictStatus): VerdictMove {
  const allowed = VERDICT_STATUSES.filter((s) => s !== from);
  if (!allowed.includes(to)) return { ok: false, allowed };
  return { ok: true, to, decides: to !== "under_review" };
}

/** The justification's problem, or null: trimmed, 10..4000 characters. */
export function justificationProblem(justification: string): string | null {
  const length = justification.trim().length;
  if (length < JUSTIFICATION_MIN) return `at least ${JUSTIFICATION_MIN} characters`;
  if (length > JUSTIFICATION_MAX) return `at most ${JUSTIFICATION_MAX} characters`;
  return null;
}
