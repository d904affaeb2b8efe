// The expiry job: an exception stops applying at its expires_at, which no request marks, so this job announces it.
// Each run claims the policies with an exception expired since their last announcement, writes LicensePolicyChanged
// for each (projects re-categorises that scope) and moves the announcement mark, in one transaction per batch.
import type { MikroORM } from "@mikro-orm/postgresql";
import { markExpiriesAnnounced, policiesWithNewlyExpiredExceptions } from "../store/exception-expiries.ts";
import { emitLicensePolicyChanged } from "./policy-events.ts";

const BATCH = 100;

/** Announces every expiry up to `now`; answers how many policies it announced. */
export async function announceExpiredExceptions(orm: MikroORM, now: Date, signal: AbortSignal): Promise<number> {
  let announced = 0;
  for (;;) {
    if (signal.aborted) return announced;
    const batch = await orm.em.fork().transactional(async (em) => {
      const policies = await policiesWithNewlyExpiredExceptions(em, now, BATCH);
      for (const p of policies)
        emitLicensePolicyChanged(em, { organizationId: p.organizationId, teamId: p.teamId }, now);
      if (policies.length)
        await markExpiriesAnnounced(
          em,
          policies.map((p) => p.id),
          now,
        );
      return policies.length;
    });
    announced += batch;
    if (batch < BATCH) return announced;
  }
}
