// Backups and restores run one at a time in the admin process, in the order asked (a restore never overlaps a
// backup): each as a task whose state, step and percent backup_tasks records for an admin to read.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import { updateTask } from "../store/backup-tasks.ts";

/** A task's body: reports its progress and finishes, or throws a TaskFailed (or anything) to fail. */
export type TaskBody = (
  progress: (step: string, percent: number) => Promise<void>,
  signal: AbortSignal,
) => Promise<void>;

/** A failure whose message an admin may read as it is (anything else is reported as an internal error). */
export class TaskFailed extends Error {}

export class TaskRunner {
  private tail: Promise<void> = Promise.resolve();
  private readonly abort = new AbortController();

  private readonly orm: MikroORM;
  private readonly logger: Logger;

  constructor(orm: MikroORM, logger: Logger) {
    this.orm = orm;
    this.logger = logger;
  }

  /** Queues the task `id` (already recorded as queued); it runs after those queued before it. */
  enqueue(id: string, body: TaskBody): void {
    this.tail = this.tail.then(() => this.run(id, body));
  }

  private async run(id: string, body: TaskBody): Promise<void> {
    const em = () => this.orm.em.fork();
    if (this.abort.signal.aborted) return;
    try {
      await updateTask(em(), id, { state: "running", startedAt: new Date() });
      await body((step, percent) => updateTask(em(), id, { step, percent }), this.abort.signal);
      await updateTask(em(), id, { state: "succeeded", step: "done", percent: 100, finishedAt: new Date() });
    } catch (err) {
      const known = err instanceof TaskFailed;
      const error = known ? err.message : "internal error (see the admin service's log)";
      await updateTask(em(), id, { state: "failed", error, finishedAt: new Date() }).catch(() => undefined);
      // The log's serializer scrubs secrets from an Error; a reason the task tells an admin anyway needs none.
      if (known) this.logger.warn({ task_id: id, reason: error }, "backup task failed");
      else this.logger.error({ task_id: id, err }, "backup task failed");
    }
  }

  /** Stops the running task (it fails) and waits for it; queued ones do not start. */
  async close(): Promise<void> {
    this.abort.abort();
    await this.tail;
  }
}
