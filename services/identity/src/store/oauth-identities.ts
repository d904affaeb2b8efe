// Linked provider identities: look-up at sign-in, linking, the owner's list, and unlinking under the
// last-sign-in-method rule.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { query, withDates } from "./raw-sql.ts";

export interface OAuthIdentityRow {
  id: string;
  user_id: string;
  provider: string;
  subject: string;
  email: string | null;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = "id, user_id, provider, subject, email, created_at, last_used_at";
const identity = (r: OAuthIdentityRow): OAuthIdentityRow => withDates(r, "created_at", "last_used_at");

export async function identityBySubject(em: EntityManager, provider: string, subject: string): Promise<OAuthIdentityRow | null> {
  const [row] = await query<OAuthIdentityRow>(em, `select ${COLUMNS} from oauth_identities where provider = ? and subject = ?`, [provider, subject]);
  return row ? identity(row) : null;
}

/** Links the identity; when a racing sign-in linked it first, the existing link stands and is returned. */
export async function linkIdentity(em: EntityManager, link: { userId: string; provider: string; subject: string; email: string | null; at: Date }): Promise<OAuthIdentityRow> {
  const [row] = await query<OAuthIdentityRow>(em,
    `insert into oauth_identities (id, user_id, provider, subject, email, created_at, last_used_at) values (?, ?, ?, ?, ?, ?, ?)
     on conflict (provider, subject) do update set last_used_at = excluded.last_used_at returning ${COLUMNS}`,
    [randomUUID(), link.userId, link.provider, link.subject, link.email, link.at, link.at]);
  return identity(row!);
}

export async function touchIdentity(em: EntityManager, id: string, email: string | null, at: Date): Promise<void> {
  await query(em, "update oauth_identities set last_used_at = ?, email = coalesce(?, email) where id = ?", [at, email, id]);
}

/** The user's identities, oldest first. */
export async function identitiesOf(em: EntityManager, userId: string): Promise<OAuthIdentityRow[]> {
  return (await query<OAuthIdentityRow>(em, `select ${COLUMNS} from oauth_identities where user_id = ? order by created_at, id`, [userId])).map(identity);
}

export type UnlinkResult = { kind: "unlinked"; identity: OAuthIdentityRow } | { kind: "not_found" } | { kind: "last_sign_in_method" };

/**
 * Removes one of the user's identities unless it is their only way to sign in (no password, no other link).
 * Run it inside a transaction: the user row is locked so two concurrent unlinks cannot each leave the other
 * as the last one and remove both.
 */
export async function unlinkIdentity(em: EntityManager, userId: string, identityId: string): Promise<UnlinkResult> {
  const [user] = await query<{ has_password: boolean }>(em, "select password_hash is not null as has_password from users where id = ? for update", [userId]);
  const identities = await identitiesOf(em, userId);
  const identity = identities.find((i) => i.id === identityId);
  if (!user || !identity) return { kind: "not_found" };
  if (!user.has_password && identities.length === 1) return { kind: "last_sign_in_method" };
  await query(em, "delete from oauth_identities where id = ?", [identityId]);
  return { kind: "unlinked", identity };
}
