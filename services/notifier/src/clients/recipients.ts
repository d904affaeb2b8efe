// Identity's DirectoryLookupService.LookupRecipients, as the notifier needs it: who a team's notifications reach, with addresses.
// Asked when an event is applied (docs/adr/0006: identity stays the owner of memberships and addresses), as the
// notifier itself, since no person is behind an event.
import { createContextValues, type Client } from "@connectrpc/connect";
import { DirectoryLookupService } from "@sca/proto/sca/identity/v1/directory_lookup_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";

export interface RecipientPerson {
  userId: string;
  email: string;
  displayName: string;
}

export interface Recipients {
  /** The team's members holding one of `roles`, and the people named by id; each active person once. */
  of(teamId: string, roles: readonly string[], userIds: readonly string[]): Promise<RecipientPerson[]>;
  /** Every active super_admin (alerts about the deployment itself). */
  superAdmins(): Promise<RecipientPerson[]>;
}

export function identityRecipients(url: string, secretKey: string): Recipients {
  const client: Client<typeof DirectoryLookupService> = createServiceClient(DirectoryLookupService, url, {
    timeoutMs: 5_000,
  });
  const lookup = async (request: { teamId: string; roles: string[]; userIds: string[]; superAdmins: boolean }) => {
    const token = await serviceCallerToken("notifier", secretKey);
    const answer = await client.lookupRecipients(request, {
      contextValues: createContextValues().set(callerTokenKey, token),
    });
    return answer.recipients.map((r) => ({ userId: r.userId, email: r.email, displayName: r.displayName }));
  };
  return {
    of: (teamId, roles, userIds) => lookup({ teamId, roles: [...roles], userIds: [...userIds], superAdmins: false }),
    superAdmins: () => lookup({ teamId: "", roles: [], userIds: [], superAdmins: true }),
  };
}
