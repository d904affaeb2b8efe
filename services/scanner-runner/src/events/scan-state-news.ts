// Each instance hears every ScanStateChanged (a consumer group of its own): it records the newest state of each
// scan in known_scan_states, which jobs check before each stage, and tells the runs it holds when the news ends
// them, so a cancelled scan stops at its next stage boundary.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ScanStateChangedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { EventHandler } from "@sca/kafka";
import type { Logger } from "@sca/log";
import { recordHeardState } from "../store/known-scan-states.ts";
import type { RunningJobs } from "./running-jobs.ts";

export function scanStateNewsHandler(
  running: RunningJobs,
  logger: Logger,
): EventHandler<typeof ScanStateChangedSchema> {
  return async (em, news, meta) => {
    const heard = { status: news.status, attempt: news.attempt };
    await recordHeardState(em, {
      scanId: news.scanId,
      ...heard,
      occurredAt: news.occurredAt ? timestampDate(news.occurredAt) : meta.timestamp,
    });
    const stopped = running.heard(news.scanId, heard);
    if (stopped > 0) logger.info({ scanId: news.scanId, ...heard }, "a running scan job was told to stop");
  };
}
