// Which portal account a provider identity signs in as. In order: the account the identity is already linked
// to; else the account with the same, provider-verified e-mail (the identity is linked to it); else, when
// AUTH_AUTO_REGISTER is on, a new account without a password. An unverified e-mail never links or registers:
// anyone can claim an address at some providers.
import type { OAuthProfile } from "./oauth-profile.ts";

export interface KnownAccount {
  userId: string;
  isActive: boolean;
  isServiceAccount: boolean;
}

export type AccountDecision =
  | { kind: "sign_in"; userId: string }
  | { kind: "link"; userId: string }
  | { kind: "register"; email: string }
  | { kind: "refuse"; reason: "account_inactive" | "email_not_verified" | "account_not_registered" };

export function decideAccount(opts: {
  profile: OAuthProfile;
  linked: KnownAccount | null;
  sameEmail: KnownAccount | null;
  autoRegister: boolean;
}): AccountDecision {
  const usable = (a: KnownAccount) => a.isActive && !a.isServiceAccount;
  if (opts.linked)
    return usable(opts.linked)
      ? { kind: "sign_in", userId: opts.linked.userId }
      : { kind: "refuse", reason: "account_inactive" };
  const { email, emailVerified } = opts.profile;
  if (!email || !emailVerified) return { kind: "refuse", reason: "email_not_verified" };
  if (opts.sameEmail)
    return usable(opts.sameEmail)
      ? { kind: "link", userId: opts.sameEmail.userId }
      : { kind: "refuse", reason: "account_inactive" };
  return opts.autoRegister ? { kind: "register", email } : { kind: "refuse", reason: "account_not_registered" };
}
