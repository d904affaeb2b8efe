// Scans' messages as the spec's JSON resources (snake_case, ISO 8601 UTC times, null for absent), each with the zod
// schema that documents it.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { BatchCreateScansResponse, Scan } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);
const time = () => z.iso.datetime();

export const SCAN_KINDS = ["source", "container", "sbom"] as const;
export const SCAN_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;

export const scanSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    project_name: z.string(),
    project_slug: z.string(),
    kind: z.enum(SCAN_KINDS),
    status: z.enum(SCAN_STATUSES),
    current_step: z.string(),
    progress_percent: z.number().int().min(0).max(100),
    ref: z.string().meta({ description: "As given; empty for none" }),
    normalized_ref: z.string().meta({ description: "What the supersede rule compares (docs/scans.md)" }),
    release: z.string().nullable().meta({ description: "metadata.release, trimmed" }),
    metadata: z.record(z.string(), z.unknown()),
    queue_task_id: z.string().meta({ description: "<scan id>/<attempt>" }),
    requested_by_user_id: z.uuid().nullable(),
    error_message: z.string().nullable(),
    team_id: z.uuid(),
    trigger: z.enum(["manual", "webhook", "schedule"]),
    attempt: z.number().int().min(1),
    pending_license_count: z
      .number()
      .int()
      .min(0)
      .meta({
        description:
          "Distinct purls whose registry license lookup was still under way when the scan succeeded (0 otherwise); " +
          "their licenses are filled in after it (docs/license-fetch.md)",
      }),
    pending_license_purls: z.array(z.string()).meta({ description: "The first 100 of those purls, in purl order" }),
    created_at: time(),
    started_at: time().nullable(),
    completed_at: time().nullable(),
    superseded_at: time().nullable(),
    updated_at: time(),
  })
  .meta({ id: "Scan" });

export type ScanJson = z.input<typeof scanSchema>;

export function scanJson(s: Scan): ScanJson {
  return {
    id: s.id,
    project_id: s.projectId,
    project_name: s.projectName,
    project_slug: s.projectSlug,
    kind: s.kind as ScanJson["kind"],
    status: s.status as ScanJson["status"],
    current_step: s.currentStep,
    progress_percent: s.progressPercent,
    ref: s.ref,
    normalized_ref: s.normalizedRef,
    release: s.release ?? null,
    metadata: s.metadata ?? {},
    queue_task_id: s.queueTaskId,
    requested_by_user_id: s.requestedByUserId ?? null,
    error_message: s.errorMessage ?? null,
    team_id: s.teamId,
    trigger: s.trigger as ScanJson["trigger"],
    attempt: s.attempt,
    pending_license_count: s.pendingLicenseCount,
    pending_license_purls: [...s.pendingLicensePurls],
    created_at: iso(s.createdAt)!,
    started_at: iso(s.startedAt),
    completed_at: iso(s.completedAt),
    superseded_at: iso(s.supersededAt),
    updated_at: iso(s.updatedAt)!,
  };
}

const BATCH_ROW_STATUSES = ["created", "already_exists", "forbidden", "invalid", "rate_limited"] as const;

export const scanBatchResultSchema = z
  .object({
    all_succeeded: z.boolean(),
    total: z.number().int(),
    created: z.number().int(),
    already_existed: z.number().int(),
    failed: z.number().int(),
    failed_by_status: z.record(z.string(), z.number().int()),
    rows: z.array(
      z.object({
        index: z.number().int(),
        status: z.enum(BATCH_ROW_STATUSES),
        project_id: z.string(),
        scan_id: z.uuid().nullable(),
        detail: z.string().nullable(),
        retry_after_seconds: z.number().int().nullable(),
      }),
    ),
  })
  .meta({ id: "ScanBatchResult" });

export function scanBatchResultJson(b: BatchCreateScansResponse): z.input<typeof scanBatchResultSchema> {
  return {
    all_succeeded: b.allSucceeded,
    total: b.total,
    created: b.created,
    already_existed: b.alreadyExisted,
    failed: b.failed,
    failed_by_status: { ...b.failedByStatus },
    rows: b.rows.map((r) => ({
      index: r.index,
      status: r.status as (typeof BATCH_ROW_STATUSES)[number],
      project_id: r.projectId,
      scan_id: r.scanId ?? null,
      detail: r.detail ?? null,
      retry_after_seconds: r.retryAfterSeconds ?? null,
    })),
  };
}
