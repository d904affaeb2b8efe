// The keys identity reads besides the runtime's: accounts and sessions (rpc/account-settings.ts), SSO
// (domain/sso-settings.ts), the directory's cascade, and Redis for the answers it caches for the gateway.
import { key, keys, parse as p } from "@sca/config";
import { ssoKeys } from "./domain/sso-settings.ts";
import { accountKeys } from "./rpc/account-settings.ts";

export const identityKeys = {
  /** A role on a group reaches every subgroup below it (store/callers.ts). */
  GROUP_CASCADE_ENABLED: key(p.bool(true)),
  REDIS_URL: keys.REDIS_URL,
  ...accountKeys,
  ...ssoKeys,
};
