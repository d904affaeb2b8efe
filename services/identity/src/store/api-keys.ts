// API-key rows: the one module that reads or writes `api_keys` (docs/adr/0005). The hash never leaves this
// file except to the verifier of the access path.
import { randomUUID } from "node:crypto";
import { raw, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { accountById } from "./accounts.ts";
import { ApiKey, type ApiKeyEntityRow } from "./entities/api-key.ts";

/** A key as it is shown: everything but its hash. */
export type ApiKeyRow = Omit<ApiKeyEntityRow, "keyHash" | "hashFormat">;

/** The row the access path verifies: the key, its hash and whether its holder may still use it. */
export interface ApiKeyCredentialRow extends ApiKeyEntityRow {
  holderId: string;
  holderActive: boolean;
  holderEmail: string;
}

export interface NewApiKey {
  name: string;
  scope: ApiKeyRow["scope"];
  organizationId: string | null;
  teamId: string | null;
  projectId: string | null;
  permissionBreadth: ApiKeyRow["permissionBreadth"];
  prefix: string;
  hash: string;
  createdByUserId: string;
  createdByEmail: string | null;
  serviceAccountId: string | null;
  expiresAt: Date | null;
}

export async function insertApiKey(em: EntityManager, k: NewApiKey): Promise<ApiKeyRow> {
  const id = randomUUID();
  await em.insert(ApiKey, {
    id,
    name: k.name,
    scope: k.scope,
    organizationId: k.organizationId,
    teamId: k.teamId,
    projectId: k.projectId,
    permissionBreadth: k.permissionBreadth,
    keyPrefix: k.prefix,
    keyHash: k.hash,
    hashFormat: "hmac_sha256",
    createdByUserId: k.createdByUserId,
    createdByEmail: k.createdByEmail,
    serviceAccountId: k.serviceAccountId,
    expiresAt: k.expiresAt,
  });
  return (await apiKeyById(em, id))!;
}

export async function apiKeyById(em: EntityManager, id: string): Promise<ApiKeyRow | null> {
  return em.findOne(ApiKey, { id }, SNAPSHOT);
}

/** The credential with the given prefix and its holder: the service account when set, else the issuer. */
export async function apiKeyCredential(em: EntityManager, prefix: string): Promise<ApiKeyCredentialRow | null> {
  const key = await em.findOne(ApiKey, { keyPrefix: prefix }, { ...SNAPSHOT, populate: ["keyHash"] });
  const holderId = key && (key.serviceAccountId ?? key.createdByUserId);
  const holder = holderId ? await accountById(em, holderId) : null;
  if (!key || !holder) return null;
  return { ...key, holderId: holder.id, holderActive: holder.isActive, holderEmail: holder.email };
}

/** Prefixes of the unrevoked keys a user holds: as their service account, or issued by them for no service account. */
export async function heldKeyPrefixes(em: EntityManager, userId: string): Promise<string[]> {
  const heldBy = [{ serviceAccountId: userId }, { serviceAccountId: null, createdByUserId: userId }];
  const rows = await em.find(ApiKey, { $or: heldBy, revokedAt: null }, { ...SNAPSHOT, fields: ["keyPrefix"] });
  return rows.map((r) => r.keyPrefix);
}

export interface ApiKeyFilter {
  scope: string | undefined;
  teamId: string | undefined;
  projectId: string | undefined;
  includeRevoked: boolean;
  /** null: every key (super_admin); otherwise keys issued by this user or belonging to these teams. */
  visibleTo: { userId: string; teamIds: string[] } | null;
}

export async function listApiKeys(
  em: EntityManager,
  f: ApiKeyFilter,
  limit: number,
  offset: number,
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const where: FilterQuery<ApiKeyEntityRow> = {};
  if (f.scope) where.scope = f.scope as ApiKeyRow["scope"];
  if (f.teamId) where.teamId = f.teamId;
  if (f.projectId) where.projectId = f.projectId;
  if (!f.includeRevoked) where.revokedAt = null;
  if (f.visibleTo) where.$or = [{ createdByUserId: f.visibleTo.userId }, { teamId: { $in: f.visibleTo.teamIds } }];
  const [rows, total] = await em.findAndCount(ApiKey, where, {
    ...SNAPSHOT,
    orderBy: { createdAt: "desc", id: "asc" },
    limit,
    offset,
  });
  return { rows, total };
}

/** Sets revoked_at once; revoking again keeps the first time. */
export async function revokeApiKey(em: EntityManager, id: string): Promise<ApiKeyRow | null> {
  await em.nativeUpdate(ApiKey, { id, revokedAt: null }, { revokedAt: raw("now()") });
  return apiKeyById(em, id);
}

/** Revokes every active key of the teams; answers their prefixes so their cached answers can be dropped. */
export async function revokeTeamApiKeys(em: EntityManager, teamIds: readonly string[]): Promise<string[]> {
  const active = { teamId: { $in: [...teamIds] }, revokedAt: null };
  const rows = await em.find(ApiKey, active, { ...SNAPSHOT, fields: ["keyPrefix"] });
  await em.nativeUpdate(ApiKey, active, { revokedAt: raw("now()") });
  return rows.map((r) => r.keyPrefix);
}

export async function narrowApiKey(em: EntityManager, id: string): Promise<ApiKeyRow | null> {
  await em.nativeUpdate(ApiKey, { id }, { permissionBreadth: "read_only" });
  return apiKeyById(em, id);
}

/** At most one write a minute per key: last_used_at is a coarse signal, not an access log. */
export async function touchApiKey(em: EntityManager, id: string): Promise<void> {
  await em.nativeUpdate(
    ApiKey,
    { id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: raw("now() - interval '1 minute'") } }] },
    { lastUsedAt: raw("now()") },
  );
}

export interface HashStats {
  activeTotal: number;
  hmacSha256Count: number;
  legacyBcryptCount: number;
}

/** Counts over active keys: not revoked and not expired. */
export async function apiKeyHashStats(em: EntityManager): Promise<HashStats> {
  const row = await em
    .createQueryBuilder(ApiKey)
    .select([
      raw("count(*)::int as active_total"),
      raw("(count(*) filter (where hash_format = 'hmac_sha256'))::int as hmac_sha256_count"),
      raw("(count(*) filter (where hash_format = 'bcrypt'))::int as legacy_bcrypt_count"),
    ])
    .where({ revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: raw("now()") } }] })
    .execute<{ active_total: number; hmac_sha256_count: number; legacy_bcrypt_count: number }>("get", false);
  return {
    activeTotal: row.active_total,
    hmacSha256Count: row.hmac_sha256_count,
    legacyBcryptCount: row.legacy_bcrypt_count,
  };
}
