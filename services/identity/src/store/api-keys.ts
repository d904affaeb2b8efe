// API-key rows. The hash never leaves this file except to the verifier of the access path.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { uuidArray } from "./uuid-array.ts";
import type { HashFormat } from "../domain/api-key-format.ts";

export interface ApiKeyRow {
  id: string;
  name: string;
  scope: "org" | "team" | "project";
  organization_id: string | null;
  team_id: string | null;
  project_id: string | null;
  permission_breadth: "read_only" | "read_write";
  key_prefix: string;
  created_by_user_id: string | null;
  created_by_email: string | null;
  service_account_id: string | null;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

/** The row the access path verifies: the key, its hash and whether its holder may still use it. */
export interface ApiKeyCredentialRow extends ApiKeyRow {
  key_hash: string;
  hash_format: HashFormat;
  holder_id: string;
  holder_active: boolean;
  holder_email: string;
}

const COLUMNS = `k.id, k.name, k.scope, k.organization_id, k.team_id, k.project_id, k.permission_breadth, k.key_prefix,
  k.created_by_user_id, k.created_by_email, k.service_account_id, k.expires_at, k.last_used_at, k.revoked_at, k.created_at`;

export interface NewApiKey {
  name: string;
  scope: ApiKeyRow["scope"];
  organizationId: string | null;
  teamId: string | null;
  projectId: string | null;
  permissionBreadth: ApiKeyRow["permission_breadth"];
  prefix: string;
  hash: string;
  createdByUserId: string;
  createdByEmail: string | null;
  serviceAccountId: string | null;
  expiresAt: Date | null;
}

export async function insertApiKey(em: EntityManager, k: NewApiKey): Promise<ApiKeyRow> {
  const [row] = await em.execute<ApiKeyRow[]>(
    `insert into api_keys as k (id, name, scope, organization_id, team_id, project_id, permission_breadth, key_prefix,
       key_hash, hash_format, created_by_user_id, created_by_email, service_account_id, expires_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, 'hmac_sha256', ?, ?, ?, ?) returning ${COLUMNS}`,
    [randomUUID(), k.name, k.scope, k.organizationId, k.teamId, k.projectId, k.permissionBreadth, k.prefix, k.hash,
      k.createdByUserId, k.createdByEmail, k.serviceAccountId, k.expiresAt]);
  return row!;
}

export async function apiKeyById(em: EntityManager, id: string): Promise<ApiKeyRow | null> {
  const [row] = await em.execute<ApiKeyRow[]>(`select ${COLUMNS} from api_keys k where k.id = ?`, [id]);
  return row ?? null;
}

/** The credential with the given prefix and its holder: the service account when set, else the issuer. */
export async function apiKeyCredential(em: EntityManager, prefix: string): Promise<ApiKeyCredentialRow | null> {
  const [row] = await em.execute<ApiKeyCredentialRow[]>(
    `select ${COLUMNS}, k.key_hash, k.hash_format, u.id as holder_id, u.is_active as holder_active, u.email as holder_email
       from api_keys k join users u on u.id = coalesce(k.service_account_id, k.created_by_user_id)
      where k.key_prefix = ?`, [prefix]);
  return row ?? null;
}

/** Prefixes of the unrevoked keys a user holds (issued by them, not through a service account). */
export async function heldKeyPrefixes(em: EntityManager, userId: string): Promise<string[]> {
  const rows = await em.execute<{ key_prefix: string }[]>(
    "select key_prefix from api_keys where coalesce(service_account_id, created_by_user_id) = ? and revoked_at is null", [userId]);
  return rows.map((r) => r.key_prefix);
}

export interface ApiKeyFilter {
  scope: string | undefined;
  teamId: string | undefined;
  projectId: string | undefined;
  includeRevoked: boolean;
  /** null: every key (super_admin); otherwise keys issued by this user or belonging to these teams. */
  visibleTo: { userId: string; teamIds: string[] } | null;
}

export async function listApiKeys(em: EntityManager, f: ApiKeyFilter, limit: number, offset: number): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (f.scope) { where.push("k.scope = ?"); params.push(f.scope); }
  if (f.teamId) { where.push("k.team_id = ?"); params.push(f.teamId); }
  if (f.projectId) { where.push("k.project_id = ?"); params.push(f.projectId); }
  if (!f.includeRevoked) where.push("k.revoked_at is null");
  if (f.visibleTo) {
    where.push("(k.created_by_user_id = ? or k.team_id = any(?::uuid[]))");
    params.push(f.visibleTo.userId, uuidArray(f.visibleTo.teamIds));
  }
  const clause = where.length ? `where ${where.join(" and ")}` : "";
  const [count] = await em.execute<{ n: number }[]>(`select count(*)::int as n from api_keys k ${clause}`, params);
  const rows = await em.execute<ApiKeyRow[]>(
    `select ${COLUMNS} from api_keys k ${clause} order by k.created_at desc, k.id limit ? offset ?`, [...params, limit, offset]);
  return { rows, total: count?.n ?? 0 };
}

/** Sets revoked_at once; revoking again keeps the first time. */
export async function revokeApiKey(em: EntityManager, id: string): Promise<ApiKeyRow | null> {
  const [row] = await em.execute<ApiKeyRow[]>(
    `update api_keys k set revoked_at = coalesce(revoked_at, now()) where id = ? returning ${COLUMNS}`, [id]);
  return row ?? null;
}

/** Revokes every active key of the teams; answers their prefixes so their cached answers can be dropped. */
export async function revokeTeamApiKeys(em: EntityManager, teamIds: readonly string[]): Promise<string[]> {
  const rows = await em.execute<{ key_prefix: string }[]>(
    "update api_keys set revoked_at = now() where team_id = any(?::uuid[]) and revoked_at is null returning key_prefix", [uuidArray(teamIds)]);
  return rows.map((r) => r.key_prefix);
}

export async function narrowApiKey(em: EntityManager, id: string): Promise<ApiKeyRow | null> {
  const [row] = await em.execute<ApiKeyRow[]>(
    `update api_keys k set permission_breadth = 'read_only' where id = ? returning ${COLUMNS}`, [id]);
  return row ?? null;
}

/** At most one write a minute per key: last_used_at is a coarse signal, not an access log. */
export async function touchApiKey(em: EntityManager, id: string): Promise<void> {
  await em.execute(
    "update api_keys set last_used_at = now() where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')", [id]);
}

export interface HashStats { active_total: number; hmac_sha256_count: number; legacy_bcrypt_count: number }

/** Counts over active keys: not revoked and not expired. */
export async function apiKeyHashStats(em: EntityManager): Promise<HashStats> {
  const [row] = await em.execute<HashStats[]>(
    `select count(*)::int as active_total,
            (count(*) filter (where hash_format = 'hmac_sha256'))::int as hmac_sha256_count,
            (count(*) filter (where hash_format = 'bcrypt'))::int as legacy_bcrypt_count
       from api_keys where revoked_at is null and (expires_at is null or expires_at > now())`);
  return row!;
}
