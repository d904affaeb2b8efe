// The backup_tasks table: the one module that reads or writes it.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { BackupTask, type BackupTaskRow } from "./entities/backup-task.ts";

export type { BackupTaskRow } from "./entities/backup-task.ts";

export type TaskChange = Partial<Pick<BackupTaskRow, "backupName" | "state" | "step" | "percent" | "error">> & {
  startedAt?: Date;
  finishedAt?: Date;
};

export async function createTask(
  em: EntityManager,
  kind: "backup" | "restore",
  backupName: string,
  requestedBy: string,
): Promise<string> {
  const id = randomUUID();
  await em.insert(BackupTask, { id, kind, backupName, state: "queued", requestedBy, createdAt: new Date() });
  return id;
}

export async function updateTask(em: EntityManager, id: string, change: TaskChange): Promise<void> {
  await em.nativeUpdate(BackupTask, { id }, change);
}

export async function findTask(em: EntityManager, id: string): Promise<BackupTaskRow | null> {
  return em.findOne(BackupTask, { id }, SNAPSHOT);
}

/** Tasks a stopped process left queued or running: they will not go on, so they are failed with `why`. */
export async function failUnfinishedTasks(em: EntityManager, why: string): Promise<number> {
  return em.nativeUpdate(
    BackupTask,
    { state: { $in: ["queued", "running"] } },
    { state: "failed", error: why, finishedAt: new Date() },
  );
}
