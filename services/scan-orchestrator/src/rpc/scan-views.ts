// Scan rows as the contract's Scan message.
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ScanSchema, type Scan } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { queueTaskId } from "../domain/scan-state.ts";
import type { ScanRow } from "../store/scans.ts";

const ts = (d: Date | null) => (d ? timestampFromDate(d) : undefined);

export function scanView(r: ScanRow): Scan {
  return create(ScanSchema, {
    id: r.id,
    projectId: r.projectId,
    projectName: r.projectName,
    projectSlug: r.projectSlug,
    kind: r.kind,
    status: r.status,
    currentStep: r.currentStep,
    progressPercent: r.progressPercent,
    ref: r.ref,
    ...(r.release === null ? {} : { release: r.release }),
    metadata: r.metadata as JsonObject,
    queueTaskId: queueTaskId(r.id, r.attempt),
    ...(r.requestedByUserId === null ? {} : { requestedByUserId: r.requestedByUserId }),
    ...(r.errorMessage === null ? {} : { errorMessage: r.errorMessage }),
    createdAt: ts(r.createdAt),
    startedAt: ts(r.startedAt),
    completedAt: ts(r.completedAt),
    supersededAt: ts(r.supersededAt),
    updatedAt: ts(r.updatedAt),
    teamId: r.teamId,
    normalizedRef: r.normalizedRef,
    trigger: r.trigger,
    attempt: r.attempt,
    pendingLicenseCount: r.pendingLicenseCount,
    pendingLicensePurls: r.pendingLicensePurls,
  });
}
