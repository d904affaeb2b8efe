// Projects' copy of the gate policies' approval_required_statuses (docs/findings.md, "Statuses a second person
// confirms"), written by the GatePolicyChanged consumer and read by the triage.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import { approvalRequiredStatuses } from "../domain/triage-confirmation.ts";

export interface GatePolicyCopy {
  organizationId: string;
  teamId: string | null;
  /** null: the policy does not set the field, or is gone (both inherit). */
  statuses: string[] | null;
  changedAt: Date;
}

/**
 * Stores what a policy now says, unless a later change of the same policy is already stored (events of one policy
 * arrive in order, keyed by its organization; the check keeps a redelivered older one from winning all the same).
 */
export async function storeGatePolicyCopy(em: EntityManager, copy: GatePolicyCopy): Promise<void> {
  await rawQuery(
    em,
    `insert into approval_required_statuses (scope_id, organization_id, team_id, statuses, changed_at)
     values (?, ?, ?, ?::jsonb, ?)
     on conflict (scope_id) do update set organization_id = excluded.organization_id, statuses = excluded.statuses,
       changed_at = excluded.changed_at
     where approval_required_statuses.changed_at <= excluded.changed_at`,
    [
      copy.teamId ?? copy.organizationId,
      copy.organizationId,
      copy.teamId,
      copy.statuses === null ? null : JSON.stringify(copy.statuses),
      copy.changedAt,
    ],
  );
}

/** The statuses in effect for a project of the team (and organization). */
export async function approvalRequiredStatusesFor(
  em: EntityManager,
  teamId: string,
  organizationId: string | null,
): Promise<readonly string[]> {
  const rows = await rawQuery(
    em,
    `select scope_id, statuses from approval_required_statuses where scope_id = ? or scope_id = ?`,
    [teamId, organizationId ?? teamId],
    { scopeId: column.text, statuses: column.json<string[]>().nullable },
  );
  const of = (id: string | null) => (id === null ? undefined : rows.find((r) => r.scopeId === id)?.statuses);
  return approvalRequiredStatuses(of(teamId), of(organizationId));
}
