// Projects' copy of the gate policies' approval_required_statuses (docs/findings.md, "Statuses a second person
// confirms"), written by the GatePolicyChanged consumer and read by the triage.
import { raw, type EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { approvalRequiredStatuses } from "../domain/triage-confirmation.ts";
import { ApprovalRequiredStatuses } from "./entities/findings.ts";

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
  await em
    .createQueryBuilder(ApprovalRequiredStatuses)
    .insert({
      scopeId: copy.teamId ?? copy.organizationId,
      organizationId: copy.organizationId,
      teamId: copy.teamId,
      statuses: copy.statuses,
      changedAt: copy.changedAt,
    })
    .onConflict("scopeId")
    .merge(["organizationId", "statuses", "changedAt"])
    .where({ changedAt: { $lte: raw("excluded.changed_at") } })
    .execute("run");
}

/** The statuses in effect for a project of the team (and organization). */
export async function approvalRequiredStatusesFor(
  em: EntityManager,
  teamId: string,
  organizationId: string | null,
): Promise<readonly string[]> {
  const rows = await em.find(
    ApprovalRequiredStatuses,
    { scopeId: { $in: [teamId, organizationId ?? teamId] } },
    { ...SNAPSHOT, fields: ["scopeId", "statuses"] },
  );
  const of = (id: string | null) => (id === null ? undefined : rows.find((r) => r.scopeId === id)?.statuses);
  return approvalRequiredStatuses(of(teamId), of(organizationId));
}
