// Who acted, as an audit event records it (sca.events.v1.AuditActor): a caller the gateway vouched for, or an
// anonymous client known only by the address the edge saw (and, once resolved, the account it claimed).
import type { Caller } from "@sca/rpc";

export interface Actor {
  userId: string;
  apiKeyId?: string;
  email: string;
  ip: string;
  userAgent: string;
}

/** The authenticated caller, with the API key it used, if any. */
export function callerActor(caller: Caller): Actor {
  return {
    userId: caller.user_id ?? "",
    apiKeyId: caller.api_key_id ?? "",
    email: caller.email ?? "",
    ip: caller.ip ?? "",
    userAgent: caller.user_agent ?? "",
  };
}

/** An anonymous client (a sca.common.v1.ClientAddress, or nothing), with the account it claimed when known. */
export function clientActor(
  client: { ip: string; userAgent: string } | undefined,
  who: { userId?: string; email?: string } = {},
): Actor {
  return { userId: who.userId ?? "", email: who.email ?? "", ip: client?.ip ?? "", userAgent: client?.userAgent ?? "" };
}
