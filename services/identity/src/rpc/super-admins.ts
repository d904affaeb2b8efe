// The rule that an active super_admin always remains, shared by the role change and deactivation.
import type { EntityManager } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import { activeSuperAdminCount } from "../store/accounts.ts";

/** 409 last-super-admin when no other active super_admin exists. Call it holding lockSuperAdmins. */
export async function refuseRemovingLastSuperAdmin(em: EntityManager): Promise<void> {
  if ((await activeSuperAdminCount(em)) > 1) return;
  throw new ProblemError({
    status: 409,
    code: "last-super-admin",
    detail: "This is the last active super_admin; promote another user first.",
  });
}
