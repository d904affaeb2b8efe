// Linked provider identities: look-up at sign-in, linking, the owner's list, and unlinking under the
// last-sign-in-method rule.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { lockAccount } from "./accounts.ts";
import { OAuthIdentity, type OAuthIdentityRow } from "./entities/oauth-identity.ts";

export type { OAuthIdentityRow };

export async function identityBySubject(
  em: EntityManager,
  provider: string,
  subject: string,
): Promise<OAuthIdentityRow | null> {
  return em.findOne(OAuthIdentity, { provider, subject }, SNAPSHOT);
}

/** Links the identity; when a racing sign-in linked it first, the existing link stands and is returned. */
export async function linkIdentity(
  em: EntityManager,
  link: { userId: string; provider: string; subject: string; email: string | null; at: Date },
): Promise<OAuthIdentityRow> {
  await em
    .createQueryBuilder(OAuthIdentity)
    .insert({
      id: randomUUID(),
      userId: link.userId,
      provider: link.provider,
      subject: link.subject,
      email: link.email,
      createdAt: link.at,
      lastUsedAt: link.at,
    })
    .onConflict(["provider", "subject"])
    .merge(["lastUsedAt"])
    .execute("run");
  return (await identityBySubject(em, link.provider, link.subject))!;
}

export async function touchIdentity(em: EntityManager, id: string, email: string | null, at: Date): Promise<void> {
  // A provider that reports no address leaves the one last seen.
  await em.nativeUpdate(OAuthIdentity, { id }, email === null ? { lastUsedAt: at } : { lastUsedAt: at, email });
}

/** The user's identities, oldest first. */
export async function identitiesOf(em: EntityManager, userId: string): Promise<OAuthIdentityRow[]> {
  return em.find(OAuthIdentity, { userId }, { ...SNAPSHOT, orderBy: { createdAt: "asc", id: "asc" } });
}

export type UnlinkResult =
  { kind: "unlinked"; identity: OAuthIdentityRow } | { kind: "not_found" } | { kind: "last_sign_in_method" };

/**
 * Removes one of the user's identities unless it is their only way to sign in (no password, no other link).
 * Run it inside a transaction: the user row is locked so two concurrent unlinks cannot each leave the other
 * as the last one and remove both.
 */
export async function unlinkIdentity(em: EntityManager, userId: string, identityId: string): Promise<UnlinkResult> {
  const user = await lockAccount(em, userId);
  const identities = await identitiesOf(em, userId);
  const identity = identities.find((i) => i.id === identityId);
  if (!user || !identity) return { kind: "not_found" };
  if (user.passwordHash === null && identities.length === 1) return { kind: "last_sign_in_method" };
  await em.nativeDelete(OAuthIdentity, { id: identityId });
  return { kind: "unlinked", identity };
}
