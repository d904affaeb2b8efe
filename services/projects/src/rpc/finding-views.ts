// A finding row as the VulnerabilityFindingService answers it, and as the VEX export reads it.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  VulnerabilityFindingSchema,
  type VulnerabilityFinding,
} from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import type { VexFinding } from "../domain/vex-documents.ts";
import type { Triage } from "../domain/vex-status.ts";
import type { FindingRow } from "../store/findings/reads.ts";

export function findingView(r: FindingRow): VulnerabilityFinding {
  return create(VulnerabilityFindingSchema, {
    id: r.id,
    projectId: r.projectId,
    scanId: r.scanId,
    componentRowId: r.componentRowId,
    componentId: r.componentId,
    componentName: r.componentName,
    componentVersion: r.componentVersion ?? undefined,
    purl: r.purl ?? undefined,
    ecosystem: r.ecosystem,
    vulnerabilityId: r.vulnerabilityId,
    aliases: r.aliases,
    summary: r.summary,
    severity: r.severity,
    cvssScore: r.cvssScore ?? undefined,
    cvssVector: r.cvssVector,
    epssScore: r.epssScore ?? undefined,
    epssPercentile: r.epssPercentile ?? undefined,
    knownExploited: r.knownExploited,
    kevDueDate: r.kevDueDate,
    fixedVersions: r.fixedVersions,
    publishedAt: r.publishedAt ? timestampFromDate(r.publishedAt) : undefined,
    references: r.references,
    status: r.status,
    justification: r.justification ?? "",
    responses: r.responses,
    detail: r.detail ?? "",
    version: r.version,
    firstDetectedAt: timestampFromDate(r.firstDetectedAt),
    detectedAt: timestampFromDate(r.detectedAt),
    removedAt: r.removedAt ? timestampFromDate(r.removedAt) : undefined,
    statusUpdatedAt: timestampFromDate(r.statusUpdatedAt),
    statusUpdatedBy: r.statusUpdatedBy ?? "",
    pendingStatus: r.pendingStatus ?? "",
    pendingJustification: r.pendingJustification ?? "",
    pendingResponses: r.pendingResponses ?? [],
    pendingDetail: r.pendingDetail ?? "",
    pendingRequestedBy: r.pendingBy ?? "",
    pendingRequestedAt: r.pendingAt ? timestampFromDate(r.pendingAt) : undefined,
  });
}

export const triageOfRow = (r: FindingRow): Triage => ({
  status: r.status as Triage["status"],
  justification: r.justification as Triage["justification"],
  responses: r.responses as Triage["responses"],
  detail: r.detail,
});

export const vexFindingOf = (r: FindingRow): VexFinding => ({
  vulnerabilityId: r.vulnerabilityId,
  aliases: r.aliases,
  severity: r.severity,
  cvssScore: r.cvssScore,
  cvssVector: r.cvssVector,
  componentKey: r.componentKey,
  componentName: r.componentName,
  componentVersion: r.componentVersion,
  purl: r.purl,
  triage: triageOfRow(r),
  firstDetectedAt: r.firstDetectedAt,
  statusUpdatedAt: r.statusUpdatedAt,
});
