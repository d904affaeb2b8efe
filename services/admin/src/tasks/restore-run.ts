// Restoring an uploaded archive: unpacked aside, then believed only once the manifest parses, every file it holds
// is one the manifest names with that size and SHA-256, and each schema here is at exactly the migrations the backup
// was taken at. Only then is anything touched: the artefact store's objects are written (an object already there
// under a key is the same bytes: artefacts are never rewritten), then the database replayed in one transaction,
// which applies whole or not at all. The restore itself is then appended to the audit log, which the replay rewound
// to the backup. The archive and the unpacked copy are deleted whatever the outcome.
import { createReadStream } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Actor } from "@sca/audit";
import { uuidv7 } from "@sca/kafka";
import {
  ARTEFACTS_FOLDER,
  DATABASE_FILE,
  filesMismatch,
  MANIFEST_FILE,
  ManifestInvalid,
  parseManifest,
  schemasMismatch,
} from "../domain/backup-manifest.ts";
import { backupAuditEntry } from "../domain/backup-audit.ts";
import { parseBackupName } from "../domain/backup-name.ts";
import { appendEntry } from "../store/audit-log.ts";
import { ArchiveUnreadable, filesUnder } from "../store/backup-directory.ts";
import { updateTask } from "../store/backup-tasks.ts";
import { schemaVersions } from "../store/schema-versions.ts";
import type { BackupDeps } from "./backup-deps.ts";
import { TaskFailed, type TaskBody } from "./task-runner.ts";

/** How long the replay waits on any one lock a running service holds before it gives up (and changes nothing). */
const LOCK_TIMEOUT_MS = 60_000;
/**
 * PostgreSQL may abort the replay as a deadlock's victim (a running service's transaction holds a lock one of the
 * replay's drops needs while it waits on one the replay holds): the replay's one transaction rolled back whole, so it
 * runs again, up to this many times in all.
 */
const REPLAY_ATTEMPTS = 3;
/** pg_restore's last lines of a deadlock (the ERROR line, or its DETAIL when only the last lines are kept). */
const DEADLOCK = /deadlock detected|blocked by process/;

export interface RestoreRequest {
  taskId: string;
  archiveKey: string;
  actor: Actor;
  requestId: string;
}

export function restoreTask(deps: BackupDeps, req: RestoreRequest): TaskBody {
  return async (progress, signal) => {
    const work = await deps.directory.workingDir(req.taskId);
    try {
      await progress("unpacking the archive", 5);
      const archive = await deps.store.get(req.archiveKey);
      if (!archive) throw new TaskFailed("the uploaded archive is gone");
      await deps.directory.unpack(archive, work).catch(refused);
      const top = await readdir(work);
      if (top.length !== 1 || !parseBackupName(top[0]!))
        throw new TaskFailed("the archive does not hold exactly one backup folder");
      const root = join(work, top[0]!);

      await progress("checking the manifest and checksums", 20);
      const manifest = await readFile(join(root, MANIFEST_FILE), "utf8")
        .catch(() => {
          throw new TaskFailed("the archive holds no manifest.json");
        })
        .then(parseManifest)
        .catch(refused);
      if (manifest.name !== top[0]) throw new TaskFailed("the archive's folder is not the backup its manifest names");
      await updateTask(deps.orm.em.fork(), req.taskId, { backupName: manifest.name });
      const found = await filesUnder(root).catch(refused);
      found.delete(MANIFEST_FILE);
      const files = filesMismatch(manifest, found);
      if (files) throw new TaskFailed(`the archive does not match its manifest: ${files}`);
      const schemas = schemasMismatch(manifest.schemas, await schemaVersions(deps.orm.em.fork(), deps.schemas));
      if (schemas) throw new TaskFailed(`the backup cannot be restored here: ${schemas}`);

      await progress("restoring the artefact store", 40);
      for (const f of manifest.files) {
        if (!f.path.startsWith(`${ARTEFACTS_FOLDER}/`)) continue;
        const key = f.path.slice(ARTEFACTS_FOLDER.length + 1);
        await deps.store.put(key, createReadStream(join(root, f.path)), { maxBytes: f.size_bytes, signal });
      }

      await progress("restoring the database", 70);
      for (let attempt = 1; ; attempt++) {
        try {
          await deps.pg.restore({ file: join(root, DATABASE_FILE), lockTimeoutMs: LOCK_TIMEOUT_MS, signal });
          break;
        } catch (err) {
          const message = (err as Error).message;
          if (attempt < REPLAY_ATTEMPTS && DEADLOCK.test(message)) continue;
          throw new TaskFailed(`the database was left as it was: ${message}`);
        }
      }
      await deps.fences.raiseAll(`restore ${req.taskId}`).catch((err: unknown) => {
        throw new TaskFailed(
          `the database was restored, but the gateway's kept component pages could not be outdated (${(err as Error).message}): restore again once Redis answers`,
        );
      });
      await deps.orm.em.fork().transactional((em) =>
        appendEntry(
          em,
          backupAuditEntry({
            id: uuidv7(),
            action: "backup.restored",
            actor: req.actor,
            requestId: req.requestId,
            backupName: manifest.name,
            details: { task_id: req.taskId, backup_portal_version: manifest.portal.version },
            at: new Date(),
          }),
        ),
      );
    } finally {
      await deps.directory.discard(work);
      await deps.store.delete(req.archiveKey).catch(() => false);
    }
  };
}

/** What is wrong with the archive, as the task's reason. */
function refused(err: unknown): never {
  if (err instanceof ArchiveUnreadable || err instanceof ManifestInvalid || err instanceof TaskFailed)
    throw new TaskFailed(err.message);
  throw err;
}
