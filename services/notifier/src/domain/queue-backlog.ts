// The queue-backlog alert (QUEUE_BACKLOG_*): a queue whose waiting messages pass its threshold is in breach; an
// alert is raised when a breach begins, not again while it lasts (the sweep runs daily), and the breach ends when
// the queue is back at or under its threshold, so a later one alerts again.
import type { NotificationContent } from "./scan-outcomes.ts";

export const QUEUES = ["scan", "default"] as const;
export type Queue = (typeof QUEUES)[number];

export interface QueueReading {
  queue: Queue;
  waiting: number;
  threshold: number;
}

/** Which breaches begin and which end, given the readings and the queues in breach until now. */
export function backlogChanges(
  readings: readonly QueueReading[],
  inBreach: ReadonlySet<Queue>,
): { begun: QueueReading[]; ended: Queue[] } {
  const over = readings.filter((r) => r.waiting > r.threshold);
  return {
    begun: over.filter((r) => !inBreach.has(r.queue)),
    ended: readings.filter((r) => r.waiting <= r.threshold && inBreach.has(r.queue)).map((r) => r.queue),
  };
}

const WHAT: Record<Queue, string> = {
  scan: "scan queue (scan jobs not yet taken by a scanner-runner)",
  default: "default queue (domain events its slowest consumer has yet to apply)",
};

export function backlogNotification(r: QueueReading): NotificationContent {
  return {
    kind: "queue.backlog",
    severity: "medium",
    title: `Queue backlog: ${r.waiting} messages waiting in the ${r.queue} queue`,
    body: `The ${WHAT[r.queue]} holds ${r.waiting} messages, over its threshold of ${r.threshold}. You are told once per breach.`,
    link: "/admin/health",
  };
}
