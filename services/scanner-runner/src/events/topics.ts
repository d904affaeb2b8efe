// The topics scanner-runner reads and writes, with the messages each carries (docs/scanner-runner.md).
import { topicContract, TOPICS } from "@sca/kafka";
import {
  ScanAttemptFinishedSchema,
  ScanJobSchema,
  ScanLogLineSchema,
  ScanProgressSchema,
  ScanStateChangedSchema,
} from "@sca/proto/sca/events/v1/scans_pb.ts";

/** The two lanes: jobs people asked for, and webhook or scheduled ones. Each has its own group and slots. */
export const scanJobLanes = {
  manual: topicContract(TOPICS.scanJobsManual, ScanJobSchema),
  automatic: topicContract(TOPICS.scanJobsAutomatic, ScanJobSchema),
} as const;

export type Lane = keyof typeof scanJobLanes;

/** What the worker reports, keyed by scan id. */
export const scanEvents = topicContract(
  TOPICS.scanEvents,
  ScanProgressSchema,
  ScanLogLineSchema,
  ScanAttemptFinishedSchema,
);

/** The scan-orchestrator's state changes (sca.domain.events also carries other services' events, skipped). */
export const scanStateNews = topicContract(TOPICS.domainEvents, ScanStateChangedSchema);
