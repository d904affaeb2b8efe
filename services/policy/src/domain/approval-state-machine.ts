// The life of an approval request (docs/approvals.md, "States"). The spec names the states and the actions but not
// the from-states of each action; ours: a pending request may be taken under review, approved or rejected; one under
// review may be approved or rejected; approved and rejected are final (a new request starts again). The same action
// twice is not a move: the second is refused like any move the table does not list.

export const APPROVAL_STATUSES = ["pending", "under_review", "approved", "rejected"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const APPROVAL_ACTIONS = ["under_review", "approved", "rejected"] as const;
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];

/** For each state, the actions that may move it on (each action leads to the state of its name). */
export const APPROVAL_MOVES: Record<ApprovalStatus, readonly ApprovalAction[]> = {
  pending: ["under_review", "approved", "rejected"],
  under_review: ["approved", "rejected"],
  approved: [],
  rejected: [],
};

export type ApprovalMove =
  { ok: true; to: ApprovalStatus; decides: boolean } | { ok: false; allowed: readonly ApprovalAction[] };

export function isApprovalStatus(value: string): value is ApprovalStatus {
  return (APPROVAL_STATUSES as readonly string[]).includes(value);
}

export function isApprovalAction(value: string): value is ApprovalAction {
  return (APPROVAL_ACTIONS as readonly string[]).includes(value);
}

export const ApprovalStateMachine = {
  initial: "pending" as ApprovalStatus,

  /** Where `action` takes an approval in `from`; `decides` when the move records the decider and the note. */
  move(from: ApprovalStatus, action: ApprovalAction): ApprovalMove {
    const allowed = APPROVAL_MOVES[from];
    if (!allowed.includes(action)) return { ok: false, allowed };
    return { ok: true, to: action, decides: action !== "under_review" };
  },

  /** Approved and rejected are final: nothing moves them, and they are kept (never deleted) as the record. */
  isTerminal(status: ApprovalStatus): boolean {
    return APPROVAL_MOVES[status].length === 0;
  },
};

/** The longest decision note kept. */
export const DECISION_NOTE_MAX = 4000;
