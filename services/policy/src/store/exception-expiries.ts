// The exceptions whose expiry passed since it was last announced: the policies they belong to, claimed (locked, others
// skipped) so replicas running the job at once share the work instead of announcing twice.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, rawStatement } from "@sca/db";

export interface ExpiredScope {
  id: string;
  organizationId: string | null;
  teamId: string | null;
}

/** Enabled policies with an exception that expired after their last announcement and by `now`; at most `limit`. */
export function policiesWithNewlyExpiredExceptions(
  em: EntityManager,
  now: Date,
  limit: number,
): Promise<ExpiredScope[]> {
  return rawQuery(
    em,
    `select id, organization_id, team_id from license_policies p
      where enabled and exists (
        select 1 from jsonb_array_elements(p.license_exceptions) e
         where e->>'expires_at' is not null
           and (e->>'expires_at')::timestamptz > p.expiries_announced_until
           and (e->>'expires_at')::timestamptz <= ?)
      order by id limit ? for update skip locked`,
    [now, limit],
    { id: column.text, organizationId: column.text.nullable, teamId: column.text.nullable },
  );
}

export async function markExpiriesAnnounced(em: EntityManager, ids: string[], now: Date): Promise<void> {
  await rawStatement(em, "update license_policies set expiries_announced_until = ? where id = any(?::uuid[])", [
    now,
    `{${ids.join(",")}}`,
  ]);
}
