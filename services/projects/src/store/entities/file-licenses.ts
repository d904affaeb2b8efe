import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * What the scanner-runner's scancode stage did in one scan (docs/scancode.md): completed, timed_out (the scan keeps
 * declared licenses only), skipped, dropped or failed, with the sentence its log carries. One row per scan, replaced
 * by a later attempt. No foreign key to the snapshot: the stage records before the inventory is ingested.
 */
export const FileLicenseScan = defineEntity({
  name: "FileLicenseScan",
  tableName: "file_license_scans",
  properties: {
    scanId: p.uuid().primary(),
    projectId: p.uuid(),
    status: p.string().length(16),
    message: p.text(),
    fileCount: p.integer(),
    scannedFileCount: p.integer(),
    detectionCount: p.integer(),
    truncated: p.boolean(),
    recordedAt: p.datetime().defaultRaw("now()"),
  },
});

/** One first-party license match in one file of a scan's tree (at most SCANCODE_MAX_DETECTIONS per scan). */
export const FileLicenseDetectionRecord = defineEntity({
  name: "FileLicenseDetectionRecord",
  tableName: "file_license_detections",
  properties: {
    scanId: p.uuid().primary(),
    /** The detection's place in the scan's (path, start_line, license) order. */
    ordinal: p.integer().primary(),
    path: p.text(),
    license: p.text(),
    score: p.double(),
    startLine: p.integer(),
    endLine: p.integer(),
    matcher: p.string().length(32),
    rule: p.string().length(255),
  },
});

export type FileLicenseScanRow = InferEntity<typeof FileLicenseScan>;
export type FileLicenseDetectionRow = InferEntity<typeof FileLicenseDetectionRecord>;
