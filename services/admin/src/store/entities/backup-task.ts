import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A backup or restore as it runs (docs/operations.md): what an admin reads of its progress and outcome. Left out of
 * every backup, so a restore neither rewinds nor loses the record of the restore itself.
 */
export const BackupTask = defineEntity({
  name: "BackupTask",
  tableName: "backup_tasks",
  properties: {
    id: p.uuid().primary(),
    /** backup or restore. */
    kind: p.string().length(16),
    /** The backup written, or the one the archive holds once its manifest is read; "" until then. */
    backupName: p.string().length(64).default(""),
    /** queued, running, succeeded or failed. */
    state: p.string().length(16),
    step: p.text().default(""),
    percent: p.integer().default(0),
    error: p.text().default(""),
    /** The super_admin who asked ("" for the schedule). */
    requestedBy: p.string().length(64).default(""),
    createdAt: p.datetime().defaultRaw("now()"),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
  },
  indexes: [{ name: "backup_tasks_created_at", properties: ["createdAt"] }],
  checks: [
    { name: "backup_tasks_kind_check", expression: "kind in ('backup', 'restore')" },
    { name: "backup_tasks_state_check", expression: "state in ('queued', 'running', 'succeeded', 'failed')" },
  ],
});

export type BackupTaskRow = InferEntity<typeof BackupTask>;
