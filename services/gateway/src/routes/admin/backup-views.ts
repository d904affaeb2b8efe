// Backups and their tasks as the spec's JSON (snake_case, ISO 8601 UTC times), each with the zod schema that
// documents it.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { Backup, BackupTask } from "@sca/proto/sca/admin/v1/backups_pb.ts";

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

export const BACKUP_NAME = /^(auto|manual)-\d{8}T\d{9}Z$/;

export const backupSchema = z
  .object({
    name: z.string().meta({ description: "auto-<UTC time> (the schedule's) or manual-<UTC time>" }),
    kind: z.enum(["automatic", "manual"]).meta({ description: "automatic backups cannot be deleted" }),
    created_at: z.iso.datetime(),
    size_bytes: z.number().int().min(0),
    object_count: z.number().int().min(0).meta({ description: "Artefact store objects it holds" }),
    portal_version: z.string().meta({ description: "SERVICE_VERSION of the portal that wrote it" }),
  })
  .meta({ id: "Backup" });

export const backupTaskSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(["backup", "restore"]),
    backup_name: z.string().nullable().meta({ description: "Null for a restore until its manifest is read" }),
    state: z.enum(["queued", "running", "succeeded", "failed"]),
    step: z.string().meta({ description: "What it is doing now" }),
    percent: z.number().int().min(0).max(100),
    error: z.string().nullable().meta({ description: "Why it failed; on a failed restore nothing was changed" }),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "BackupTask" });

export const backupJson = (b: Backup): z.output<typeof backupSchema> => ({
  name: b.name,
  kind: b.kind === "automatic" ? "automatic" : "manual",
  created_at: iso(b.createdAt)!,
  size_bytes: Number(b.sizeBytes),
  object_count: Number(b.objectCount),
  portal_version: b.portalVersion,
});

export const backupTaskJson = (t: BackupTask): z.output<typeof backupTaskSchema> => ({
  id: t.id,
  kind: t.kind === "restore" ? "restore" : "backup",
  backup_name: t.backupName || null,
  state: t.state as z.output<typeof backupTaskSchema>["state"],
  step: t.step,
  percent: t.percent,
  error: t.error || null,
  created_at: iso(t.createdAt)!,
  started_at: iso(t.startedAt),
  finished_at: iso(t.finishedAt),
});
