// What backing up and restoring need: the database (admin's own connection and the dump tools), the artefact store,
// the backup directory, which schema is whose, and the deployment's identity a manifest names.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ArtefactStore } from "@sca/artefacts";
import type { Logger } from "@sca/log";
import type { WriteFences } from "@sca/redis";
import type { PgTools } from "../clients/pg-tools.ts";
import type { BackupDirectory } from "../store/backup-directory.ts";

export interface BackupDeps {
  orm: MikroORM;
  /** Projects' write fences (ADR 12): a restore rewrites its rows with none, so it outdates every kept page. */
  fences: WriteFences;
  store: ArtefactStore;
  directory: BackupDirectory;
  pg: PgTools;
  /** Service name to its schema: the schemas a backup holds. */
  schemas: Record<string, string>;
  /** admin's own schema (its backup_tasks table stays out of every backup). */
  adminSchema: string;
  portal: { version: string; commit: string };
  /** Automatic backups kept (BACKUP_AUTO_KEEP). */
  autoKeep: number;
  logger: Logger;
}

/** Where the gateway puts an archive uploaded for a restore: never part of a backup, deleted once restored. */
export const RESTORE_UPLOADS = "restore-uploads";
