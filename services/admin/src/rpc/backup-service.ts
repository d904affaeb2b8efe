// BackupService: list, create (queued), download (streamed), restore (queued), delete and read a task. super_admin
// only; anyone else NotFound.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { callerActor, type Actor } from "@sca/audit";
import { uuidv7 } from "@sca/kafka";
import { UUID } from "@sca/ids";
import { currentRequestId } from "@sca/log";
import { ProblemError } from "@sca/problem";
import {
  BackupSchema,
  BackupService,
  BackupTaskSchema,
  CreateBackupResponseSchema,
  DeleteBackupResponseSchema,
  DownloadBackupResponseSchema,
  GetBackupTaskResponseSchema,
  ListBackupsResponseSchema,
  StartRestoreResponseSchema,
} from "@sca/proto/sca/admin/v1/backups_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { backupName, parseBackupName } from "../domain/backup-name.ts";
import { backupAuditEntry } from "../domain/backup-audit.ts";
import { appendEntry } from "../store/audit-log.ts";
import type { StoredBackup } from "../store/backup-directory.ts";
import { createTask, findTask, type BackupTaskRow } from "../store/backup-tasks.ts";
import { RESTORE_UPLOADS, type BackupDeps } from "../tasks/backup-deps.ts";
import { backupTask } from "../tasks/backup-run.ts";
import { restoreTask } from "../tasks/restore-run.ts";
import type { TaskRunner } from "../tasks/task-runner.ts";

/** Bytes per streamed message of a download. */
const CHUNK_BYTES = 64 * 1024;

const backupView = (b: StoredBackup) =>
  create(BackupSchema, {
    name: b.manifest.name,
    kind: b.manifest.kind,
    createdAt: timestampFromDate(parseBackupName(b.manifest.name)!.createdAt),
    sizeBytes: BigInt(b.sizeBytes),
    objectCount: BigInt(b.manifest.files.length - 1),
    portalVersion: b.manifest.portal.version,
  });

const taskView = (t: BackupTaskRow) =>
  create(BackupTaskSchema, {
    id: t.id,
    kind: t.kind,
    backupName: t.backupName,
    state: t.state,
    step: t.step,
    percent: t.percent,
    error: t.error,
    createdAt: timestampFromDate(t.createdAt),
    startedAt: t.startedAt ? timestampFromDate(t.startedAt) : undefined,
    finishedAt: t.finishedAt ? timestampFromDate(t.finishedAt) : undefined,
  });

/** Appends a backup action to the audit log now (domain/backup-audit.ts says why not through the outbox). */
async function recordBackupAction(
  deps: BackupDeps,
  action: "backup.created" | "backup.deleted",
  actor: Actor,
  backupName: string,
  details: Record<string, string>,
): Promise<void> {
  await deps.orm.em.fork().transactional((em) =>
    appendEntry(
      em,
      backupAuditEntry({
        id: uuidv7(),
        action,
        actor,
        requestId: currentRequestId() ?? "",
        backupName,
        details,
        at: new Date(),
      }),
    ),
  );
}

/**
 * Enqueues a backup of `kind` under a fresh name, its taking recorded in the audit log first (so the backup holds
 * it); `actor` is the person who asked, or the schedule (an empty actor). Answers the name and the task's id.
 */
export async function enqueueBackup(
  deps: BackupDeps,
  runner: TaskRunner,
  kind: "automatic" | "manual",
  actor: Actor,
): Promise<{ name: string; taskId: string }> {
  const name = backupName(kind, new Date());
  const taskId = await createTask(deps.orm.em.fork(), "backup", name, actor.userId);
  await recordBackupAction(deps, "backup.created", actor, name, { task_id: taskId, kind });
  runner.enqueue(taskId, backupTask(deps, name));
  return { name, taskId };
}

export function registerBackupService(router: ConnectRouter, deps: BackupDeps, runner: TaskRunner): void {
  const backupOrNotFound = async (name: string) => {
    const found = await deps.directory.read(name);
    if (!found) throw ProblemError.notFound("No such backup.");
    return found;
  };
  router.service(BackupService, {
    async listBackups(_req, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      return create(ListBackupsResponseSchema, { items: (await deps.directory.list()).map(backupView) });
    },

    async createBackup(_req, ctx: HandlerContext) {
      const admin = requireSuperAdmin(ctx);
      const { name, taskId } = await enqueueBackup(deps, runner, "manual", callerActor(admin));
      return create(CreateBackupResponseSchema, { name, taskId });
    },

    async *downloadBackup(req, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      await backupOrNotFound(req.name);
      let pending: Buffer[] = [];
      let size = 0;
      for await (const chunk of deps.directory.archive(req.name, ctx.signal) as AsyncIterable<Buffer>) {
        pending.push(chunk);
        size += chunk.length;
        while (size >= CHUNK_BYTES) {
          const all = Buffer.concat(pending);
          yield create(DownloadBackupResponseSchema, { chunk: all.subarray(0, CHUNK_BYTES) });
          pending = [all.subarray(CHUNK_BYTES)];
          size = all.length - CHUNK_BYTES;
        }
      }
      if (size > 0) yield create(DownloadBackupResponseSchema, { chunk: Buffer.concat(pending) });
    },

    async startRestore(req, ctx: HandlerContext) {
      const admin = requireSuperAdmin(ctx);
      const key = req.archiveKey;
      if (!key.startsWith(`${RESTORE_UPLOADS}/`) || !(await deps.store.stat(key)))
        throw ProblemError.validation([{ path: "archive", message: "no uploaded archive under this key" }]);
      const taskId = await createTask(deps.orm.em.fork(), "restore", "", admin.user_id ?? "");
      runner.enqueue(
        taskId,
        restoreTask(deps, { taskId, archiveKey: key, actor: callerActor(admin), requestId: currentRequestId() ?? "" }),
      );
      return create(StartRestoreResponseSchema, {
        message: "Restore queued: the archive is checked before anything changes; follow the task for the outcome.",
        taskId,
      });
    },

    async deleteBackup(req, ctx: HandlerContext) {
      const admin = requireSuperAdmin(ctx);
      const found = await backupOrNotFound(req.name);
      if (found.manifest.kind === "automatic")
        throw new ProblemError({
          status: 409,
          code: "backup_protected",
          detail: "Automatic backups are kept by the schedule's retention (BACKUP_AUTO_KEEP) and cannot be deleted.",
        });
      if (!(await deps.directory.remove(req.name))) throw ProblemError.notFound("No such backup.");
      await recordBackupAction(deps, "backup.deleted", callerActor(admin), req.name, {});
      return create(DeleteBackupResponseSchema, {});
    },

    async getBackupTask(req, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      const task = UUID.test(req.taskId) ? await findTask(deps.orm.em.fork(), req.taskId.toLowerCase()) : null;
      if (!task) throw ProblemError.notFound("No such backup task.");
      return create(GetBackupTaskResponseSchema, { task: taskView(task) });
    },
  });
}
