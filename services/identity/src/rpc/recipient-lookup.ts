// DirectoryLookupService.LookupRecipients: who a team's notifications reach, with the address to write to. For the notifier only
// (docs/notifications.md): the answer carries e-mail addresses, which no other service shows.
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import { requireService } from "@sca/rpc";
import {
  LookupRecipientsResponseSchema,
  RecipientSchema,
  type LookupRecipientsRequest,
  type LookupRecipientsResponse,
} from "@sca/proto/sca/identity/v1/directory_lookup_pb.ts";
import { isMembershipRole } from "../domain/roles.ts";
import { accountsByIds, activeSuperAdminIds } from "../store/accounts.ts";
import { membershipsWithRoles } from "../store/teams.ts";
import { UUID } from "@sca/ids";

const LOOKUP_MAX = 500;
export const RECIPIENT_LOOKUP_CALLER = "notifier";

export function lookupRecipientsHandler(deps: { orm: MikroORM }) {
  return async (req: LookupRecipientsRequest, ctx: HandlerContext): Promise<LookupRecipientsResponse> => {
    requireService(ctx, RECIPIENT_LOOKUP_CALLER);
    if (req.userIds.length > LOOKUP_MAX)
      throw ProblemError.validation([{ path: "user_ids", message: `at most ${LOOKUP_MAX} ids` }]);
    const unknownRole = req.roles.find((r) => !isMembershipRole(r));
    if (unknownRole) throw ProblemError.validation([{ path: "roles", message: `unknown role ${unknownRole}` }]);
    const em = deps.orm.em.fork();
    const members = UUID.test(req.teamId) ? await membershipsWithRoles(em, req.teamId, req.roles) : [];
    const roleOf = new Map(members.map((m) => [m.userId, m.role]));
    const named = req.userIds.filter((id) => UUID.test(id));
    if (req.superAdmins) named.push(...(await activeSuperAdminIds(em)));
    const accounts = await accountsByIds(em, [...roleOf.keys(), ...named]);
    const recipients = [...accounts.values()]
      .filter((a) => a.isActive && !a.isServiceAccount)
      .map((a) => {
        const role = roleOf.get(a.id);
        return create(RecipientSchema, {
          userId: a.id,
          email: a.email,
          displayName: a.fullName || a.email,
          ...(role ? { role } : {}),
        });
      });
    return create(LookupRecipientsResponseSchema, { recipients });
  };
}
