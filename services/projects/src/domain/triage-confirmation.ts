// Statuses a second person confirms (docs/findings.md): the gate policy's approval_required_statuses names finding
// statuses one person may not reach alone. A change into one of them waits (the status in force stays, so the gate
// keeps counting the finding) until a different person confirms it. Pure rules; the copy of the policies is kept by
// events/gate-policy-feed.ts.
import { isPerson, type Caller } from "@sca/rpc";
import type { VexState } from "@sca/vocabulary";

/** A stored policy's setting: undefined when there is no policy, null when the policy does not set the field. */
export type StatusSetting = readonly string[] | null | undefined;

/** The statuses in effect for a team: its own policy's when set, else its organization default's, else none. */
export function approvalRequiredStatuses(team: StatusSetting, organization: StatusSetting): readonly string[] {
  if (team !== undefined && team !== null) return team;
  if (organization !== undefined && organization !== null) return organization;
  return [];
}

/**
 * Whether moving from `from` to `to` needs a second person: `to` is named and is a different status. Staying in a
 * named status (to change its justification, responses or detail) is not reaching it, so it applies at once.
 */
export const needsConfirmation = (from: VexState, to: VexState, required: readonly string[]): boolean =>
  from !== to && required.includes(to);

export type ConfirmationRefusal = "not_a_person" | "same_person";

/** Who may confirm: a person (never an API key or a service), other than the one who asked for the change. */
export function confirmationRefusal(caller: Caller, requestedBy: string | null): ConfirmationRefusal | null {
  if (!isPerson(caller)) return "not_a_person";
  if (requestedBy !== null && requestedBy === caller.user_id) return "same_person";
  return null;
}
