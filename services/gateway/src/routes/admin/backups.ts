// Backups and restore (BackupService; docs/operations.md): the spec's five routes and the task an admin follows.
// super_admin only, 404 to anyone else. A restore's archive streams from the multipart body into the artefact store
// (never held in memory), after the confirmation and length headers are checked and before admin is asked.
import { randomUUID } from "node:crypto";
import type { Request } from "express";
import { z } from "zod";
import { openArtefactStore, type ArtefactStore } from "@sca/artefacts";
import { ProblemError } from "@sca/problem";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { multipartFile } from "../../http/multipart.ts";
import { binary } from "../scans/uploads.ts";
import { BACKUP_NAME, backupJson, backupSchema, backupTaskJson, backupTaskSchema } from "./backup-views.ts";

/** Where restore archives are put; admin takes only keys under it (and never backs them up). */
const RESTORE_UPLOADS = "restore-uploads";
/** The values of X-Confirm-Restore that confirm (case-insensitive). */
const CONFIRMATIONS = new Set(["yes", "true"]);

const hidden = problemResponse("The caller is not a super_admin (the admin surface is not shown)");
const nameParams = z.object({ name: z.string().regex(BACKUP_NAME).meta({ example: "manual-20261128T143000123Z" }) });
const taskAnswer = z.object({ name: z.string(), task_id: z.uuid() }).meta({ id: "BackupCreated" });
const restoreAnswer = z.object({ message: z.string(), task_id: z.uuid() }).meta({ id: "RestoreStarted" });

function confirmRestore(req: Request, maxBytes: number): void {
  const confirmation = String(req.headers["x-confirm-restore"] ?? "")
    .trim()
    .toLowerCase();
  if (!CONFIRMATIONS.has(confirmation))
    throw new ProblemError({
      status: 400,
      code: "restore_not_confirmed",
      detail: "A restore replaces the portal's data: send X-Confirm-Restore: yes to confirm it.",
    });
  const declared = req.headers["content-length"];
  if (declared === undefined || !/^\d+$/.test(declared))
    throw new ProblemError({
      status: 411,
      code: "length_required",
      detail: "Send the archive with a Content-Length (not chunked).",
    });
  if (Number(declared) > maxBytes + 64 * 1024)
    throw new ProblemError({
      status: 413,
      code: "artefact_too_large",
      detail: `The archive is larger than ${maxBytes} bytes (BACKUP_RESTORE_MAX_BYTES).`,
      extensions: { max_bytes: maxBytes },
    });
}

export function backupRoutes(ctx: GatewayContext, store?: ArtefactStore): Route[] {
  const backups = ctx.clients.admin.backups;
  const artefacts = store ?? openArtefactStore(ctx.config);
  const maxBytes = ctx.config.BACKUP_RESTORE_MAX_BYTES;
  const auth = ctx.auth.route("super_admin");
  const tags = ["admin: backups"];
  return [
    defineRoute({
      method: "get",
      path: "/v1/admin/backup",
      summary: "List backups, newest first",
      description: "Automatic (BACKUP_AUTO_EVERY_HOURS, BACKUP_AUTO_KEEP kept) and manual backups under BACKUP_DIR.",
      tags,
      operationId: "adminListBackups",
      auth,
      responses: {
        200: {
          description: "The backups",
          schema: z.object({ items: z.array(backupSchema), total: z.number().int() }).meta({ id: "BackupList" }),
        },
        404: hidden,
      },
      handler: async ({ call }) => {
        const { items } = await backups.listBackups({}, call);
        return { status: 200, body: { items: items.map(backupJson), total: items.length } };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/admin/backup",
      summary: "Take a manual backup",
      description:
        "Enqueued: every service's schema (pg_dump) and the artefact store's objects, with a manifest of versions and " +
        "checksums. Follow GET /v1/admin/backup-tasks/{task_id}; the backup is listed once complete.",
      tags,
      operationId: "adminCreateBackup",
      auth,
      responses: { 202: { description: "The backup's name and task", schema: taskAnswer }, 404: hidden },
      handler: async ({ call }) => {
        const answer = await backups.createBackup({}, call);
        return { status: 202, body: { name: answer.name, task_id: answer.taskId } };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/backup/{name}/download",
      summary: "Download a backup as tar.gz",
      description: "The backup's directory (manifest.json, database.dump, artefacts/) as a gzip'd tar, streamed.",
      tags,
      operationId: "adminDownloadBackup",
      auth,
      request: { params: nameParams },
      responses: {
        200: {
          description: "The archive",
          content: { "application/gzip": binary() },
          headers: z.object({
            "Content-Disposition": z
              .string()
              .meta({ example: 'attachment; filename="manual-20261128T143000123Z.tar.gz"' }),
          }),
          stream: true,
        },
        404: problemResponse("No such backup, or the caller is not a super_admin"),
      },
      handler: async ({ params, call }) => {
        const parts = backups.downloadBackup({ name: params.name }, call);
        const iterator = parts[Symbol.asyncIterator]();
        // The first chunk comes before the status: a missing backup is still a problem document.
        const first = await iterator.next();
        async function* bytes() {
          try {
            for (let next = first; !next.done; next = await iterator.next()) yield next.value.chunk;
          } finally {
            await iterator.return?.();
          }
        }
        return {
          status: 200,
          stream: bytes(),
          headers: {
            "Content-Type": "application/gzip",
            "Content-Disposition": `attachment; filename="${params.name}.tar.gz"`,
          },
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/admin/backup/restore",
      summary: "Restore a backup (destructive)",
      description:
        "multipart/form-data field `archive`: a tar.gz GET /v1/admin/backup/{name}/download answered. Headers " +
        "X-Confirm-Restore: yes and Content-Length are required (400 and 411 without them; nothing is read or " +
        "changed). The restore runs as a task (GET /v1/admin/backup-tasks/{task_id}): it checks the manifest and " +
        "every checksum first, then replaces every service's data and the artefact store's objects with the " +
        "backup's; a failed restore leaves the portal as it was. The audit log is rewound to the backup and the " +
        "restore recorded as the entry after it.",
      tags,
      operationId: "adminRestoreBackup",
      auth,
      request: {
        streamedBody: {
          description: "The archive",
          content: { "multipart/form-data": z.object({ archive: binary() }) },
        },
      },
      responses: {
        202: { description: "The restore is queued", schema: restoreAnswer },
        400: problemResponse("No X-Confirm-Restore: yes, or a malformed multipart body"),
        404: hidden,
        411: problemResponse("No Content-Length"),
        413: problemResponse("Larger than BACKUP_RESTORE_MAX_BYTES"),
        415: problemResponse("Not multipart/form-data"),
        422: problemResponse("No archive part"),
      },
      handler: async ({ req, call }) => {
        confirmRestore(req, maxBytes);
        if ((req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase() !== "multipart/form-data")
          throw new ProblemError({
            status: 415,
            code: "unsupported_media_type",
            detail: "Send the archive as multipart/form-data (field archive).",
          });
        const { body } = await multipartFile(req, "archive", maxBytes);
        const key = `${RESTORE_UPLOADS}/${randomUUID()}`;
        try {
          const stored = await artefacts.put(key, body, { maxBytes });
          const answer = await backups.startRestore(
            { archiveKey: key, archiveSizeBytes: BigInt(stored.sizeBytes) },
            call,
          );
          return { status: 202, body: { message: answer.message, task_id: answer.taskId } };
        } catch (err) {
          body.resume();
          await artefacts.delete(key).catch(() => false);
          throw err;
        }
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/admin/backup/{name}",
      summary: "Delete a manual backup",
      description: "Automatic backups are protected (409 backup_protected): the schedule's retention removes them.",
      tags,
      operationId: "adminDeleteBackup",
      auth,
      request: { params: nameParams },
      responses: {
        204: { description: "Deleted" },
        404: problemResponse("No such backup, or the caller is not a super_admin"),
        409: problemResponse("An automatic backup"),
      },
      handler: async ({ params, call }) => {
        await backups.deleteBackup({ name: params.name }, call);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/backup-tasks/{task_id}",
      summary: "A backup or restore task's progress and outcome",
      description: "The task a backup or restore answered: its state, step, percent and, when it failed, why.",
      tags,
      operationId: "adminGetBackupTask",
      auth,
      request: { params: z.object({ task_id: z.uuid() }) },
      responses: {
        200: { description: "The task", schema: backupTaskSchema },
        404: problemResponse("No such task, or the caller is not a super_admin"),
      },
      handler: async ({ params, call }) => {
        const { task } = await backups.getBackupTask({ taskId: params.task_id }, call);
        return { status: 200, body: backupTaskJson(task!) };
      },
    }),
  ];
}
