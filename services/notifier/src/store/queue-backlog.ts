// The queue_backlog_breaches table: the one module that reads or writes it (docs/adr/0005).
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { Queue, QueueReading } from "../domain/queue-backlog.ts";
import { QueueBacklogBreach } from "./entities/queue-backlog-breach.ts";

export async function queuesInBreach(em: EntityManager): Promise<Set<Queue>> {
  const rows = await em.find(QueueBacklogBreach, {}, SNAPSHOT);
  return new Set(rows.map((r) => r.queue as Queue));
}

/** Records a breach; false when another sweep recorded it first (then it raises nothing). */
export async function beginBreach(em: EntityManager, r: QueueReading, alertId: string): Promise<boolean> {
  const inserted: unknown = await em
    .createQueryBuilder(QueueBacklogBreach)
    .insert({ queue: r.queue, alertId, waiting: r.waiting, threshold: r.threshold })
    .onConflict(["queue"])
    .ignore()
    .returning(["queue"])
    .execute("all");
  return (inserted as unknown[]).length > 0;
}

export async function endBreaches(em: EntityManager, queues: readonly Queue[]): Promise<void> {
  if (queues.length > 0) await em.nativeDelete(QueueBacklogBreach, { queue: { $in: [...queues] } });
}
