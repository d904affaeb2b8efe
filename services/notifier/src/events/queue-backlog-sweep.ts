// The daily queue-backlog sweep: reads the scan and default queues' consumer lag, and for each breach that begins
// raises one queue.backlog alert to the super_admins (in-app, and whatever rules, chat and ticket settings add),
// in the transaction that records the breach; a breach that ends is forgotten, so the next one alerts again.
import { randomUUID } from "node:crypto";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import type { QueueLag } from "@sca/kafka";
import { backlogChanges, backlogNotification, type QueueReading } from "../domain/queue-backlog.ts";
import { beginBreach, endBreaches, queuesInBreach } from "../store/queue-backlog.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { raiseNotification } from "./raise-notification.ts";

export interface BacklogSweepDeps {
  orm: MikroORM;
  raise: RaiseDeps;
  logger: Logger;
  measure: () => Promise<QueueLag>;
  thresholds: { scan: number; default: number };
}

/** One sweep; answers the breaches it alerted about. */
export async function sweepQueueBacklog(deps: BacklogSweepDeps): Promise<QueueReading[]> {
  const lag = await deps.measure();
  const readings: QueueReading[] = [
    { queue: "scan", waiting: lag.scan, threshold: deps.thresholds.scan },
    { queue: "default", waiting: lag.default, threshold: deps.thresholds.default },
  ];
  const { begun, ended } = backlogChanges(readings, await queuesInBreach(deps.orm.em.fork()));
  await endBreaches(deps.orm.em.fork(), ended);
  const alerted: QueueReading[] = [];
  for (const reading of begun) {
    const people = await deps.raise.recipients.superAdmins();
    const raised = await deps.orm.em.fork().transactional(async (em) => {
      const alertId = randomUUID();
      if (!(await beginBreach(em, reading, alertId))) return false;
      await raiseNotification(em, deps.raise, {
        content: backlogNotification(reading),
        teamId: null,
        projectId: null,
        scanId: null,
        people,
        sourceEventId: alertId,
        occurredAt: new Date(),
      });
      return true;
    });
    if (raised) alerted.push(reading);
  }
  deps.logger.info({ ...lag, alerted: alerted.map((r) => r.queue), ended }, "swept the queue backlog");
  return alerted;
}
