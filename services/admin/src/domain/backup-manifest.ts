// A backup's manifest (manifest.json at the top of its directory): the portal and PostgreSQL versions that wrote it,
// each service's schema with the migrations applied when it was dumped, and every other file of the backup with its
// size and SHA-256. A restore believes nothing of an archive until the manifest parses and every file it finds is
// exactly one the manifest names, with that size and digest.
import type { BackupKind } from "./backup-name.ts";
import { parseBackupName } from "./backup-name.ts";

export const MANIFEST_FORMAT = "sca-backup-v1";
export const MANIFEST_FILE = "manifest.json";
/** The database dump (pg_dump's custom format) within a backup. */
export const DATABASE_FILE = "database.dump";
/** The folder of the artefact store's objects within a backup: artefacts/<key>. */
export const ARTEFACTS_FOLDER = "artefacts";

export interface SchemaRecord {
  service: string;
  schema: string;
  /** Names of the migrations applied, oldest first. */
  migrations: string[];
}

export interface FileRecord {
  /** Relative to the backup's directory, "/"-separated. */
  path: string;
  size_bytes: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof MANIFEST_FORMAT;
  name: string;
  kind: BackupKind;
  created_at: string;
  portal: { version: string; commit: string };
  postgres: { server_version: string; pg_dump_version: string };
  schemas: SchemaRecord[];
  files: FileRecord[];
}

export class ManifestInvalid extends Error {}

const isText = (v: unknown): v is string => typeof v === "string";
const SHA256 = /^[0-9a-f]{64}$/;
// What a file's path may be: segments the artefact keys allow, never empty, "." or "..".
const SAFE_PATH = /^(?!.*(^|\/)\.)[A-Za-z0-9_./-]{1,600}$/;

/** The manifest of `text`, or ManifestInvalid saying what is wrong with it. */
export function parseManifest(text: string): BackupManifest {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ManifestInvalid("manifest.json is not JSON");
  }
  if (typeof m !== "object" || m === null) throw new ManifestInvalid("manifest.json is not an object");
  if (m.format !== MANIFEST_FORMAT) throw new ManifestInvalid(`the manifest's format is not ${MANIFEST_FORMAT}`);
  if (!isText(m.name) || !parseBackupName(m.name)) throw new ManifestInvalid("the manifest names no backup");
  const portal = m.portal as Record<string, unknown> | undefined;
  const postgres = m.postgres as Record<string, unknown> | undefined;
  if (!portal || !isText(portal.version) || !isText(portal.commit))
    throw new ManifestInvalid("the manifest has no portal version");
  if (!postgres || !isText(postgres.server_version) || !isText(postgres.pg_dump_version))
    throw new ManifestInvalid("the manifest has no PostgreSQL version");
  if (!Array.isArray(m.schemas) || !Array.isArray(m.files)) throw new ManifestInvalid("the manifest lists no files");
  const schemas = m.schemas.map((s: Record<string, unknown>) => {
    if (!isText(s?.service) || !isText(s.schema) || !Array.isArray(s.migrations) || !s.migrations.every(isText))
      throw new ManifestInvalid("a schema of the manifest is malformed");
    return { service: s.service, schema: s.schema, migrations: s.migrations };
  });
  const files = m.files.map((f: Record<string, unknown>) => {
    if (!isText(f?.path) || !SAFE_PATH.test(f.path) || !isText(f.sha256) || !SHA256.test(f.sha256))
      throw new ManifestInvalid("a file of the manifest is malformed");
    if (typeof f.size_bytes !== "number" || !Number.isSafeInteger(f.size_bytes) || f.size_bytes < 0)
      throw new ManifestInvalid(`the size of ${f.path} in the manifest is malformed`);
    return { path: f.path, size_bytes: f.size_bytes, sha256: f.sha256 };
  });
  if (!files.some((f) => f.path === DATABASE_FILE)) throw new ManifestInvalid("the manifest names no database dump");
  return {
    format: MANIFEST_FORMAT,
    name: m.name,
    kind: parseBackupName(m.name)!.kind,
    created_at: isText(m.created_at) ? m.created_at : "",
    portal: { version: portal.version, commit: portal.commit },
    postgres: { server_version: postgres.server_version, pg_dump_version: postgres.pg_dump_version },
    schemas,
    files,
  };
}

/**
 * What differs between the files the manifest names and those found (path to size and digest; manifest.json itself
 * left out): the first difference as a sentence, or null when they are the same set with the same bytes.
 */
export function filesMismatch(
  manifest: BackupManifest,
  found: ReadonlyMap<string, { sizeBytes: number; sha256: string }>,
): string | null {
  for (const f of manifest.files) {
    const got = found.get(f.path);
    if (!got) return `${f.path} is missing from the archive`;
    if (got.sizeBytes !== f.size_bytes)
      return `${f.path} has ${got.sizeBytes} bytes, the manifest says ${f.size_bytes}`;
    if (got.sha256 !== f.sha256) return `the checksum of ${f.path} does not match the manifest`;
  }
  const named = new Set(manifest.files.map((f) => f.path));
  for (const path of found.keys()) if (!named.has(path)) return `${path} is in the archive but not in the manifest`;
  return null;
}

/**
 * Whether the live database can take the backup's dump: the same schemas, each with exactly the migrations the
 * backup was taken at (so the portal is at head again once it is restored). A sentence when not, else null.
 */
export function schemasMismatch(backup: readonly SchemaRecord[], live: readonly SchemaRecord[]): string | null {
  const liveOf = new Map(live.map((s) => [s.service, s]));
  for (const s of backup) {
    const here = liveOf.get(s.service);
    if (!here) return `the backup holds the ${s.service} schema, which this deployment does not back up`;
    if (here.schema !== s.schema)
      return `the backup's ${s.service} schema is "${s.schema}", this deployment's "${here.schema}"`;
    if (here.migrations.join("\n") !== s.migrations.join("\n"))
      return `the ${s.service} schema is at another migration than the backup's (restore it with the portal version that wrote it, ${s.migrations.at(-1) ?? "none"})`;
  }
  const inBackup = new Set(backup.map((s) => s.service));
  const missing = live.find((s) => !inBackup.has(s.service) && s.migrations.length > 0);
  if (missing) return `the backup does not hold the ${missing.service} schema`;
  return null;
}
