import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import type { ScanKind, ScanStatus, ScanTrigger } from "../../domain/scan-state.ts";
import { ScanUpload } from "./scan-upload.ts";

/**
 * A scan: the truth of its state (Kafka only carries its jobs and news). Project and team live in other services:
 * their ids are kept as given, with the project's name and slug as they were when the scan was created. Each index
 * serves a list filter or a sweep (docs/scans.md, "Store").
 */
export const Scan = defineEntity({
  name: "Scan",
  tableName: "scans",
  properties: {
    id: p.uuid().primary(),
    projectId: p.uuid(),
    teamId: p.uuid(),
    projectName: p.string().length(255),
    projectSlug: p.string().length(64),
    kind: p.string().length(16).$type<ScanKind>(),
    status: p.string().length(16).$type<ScanStatus>(),
    trigger: p.string().length(16).$type<ScanTrigger>(),
    /** As given; '' for none. */
    ref: p.string().length(512).default(""),
    /** What the supersede rule compares (domain/refs.ts). */
    normalizedRef: p.string().length(600).default(""),
    /** metadata.release, trimmed. */
    release: p.string().length(100).strictNullable(),
    metadata: p.json<Record<string, unknown>>(),
    currentStep: p.string().length(64).default(""),
    progressPercent: p.integer().default(0),
    attempt: p.integer().default(1),
    requestedByUserId: p.uuid().strictNullable(),
    requestedByApiKeyId: p.uuid().strictNullable(),
    sbomUploadId: p.manyToOne(ScanUpload).mapToPk().fieldName("sbom_upload_id").strictNullable().deleteRule("set null"),
    sourceArchiveId: p
      .manyToOne(ScanUpload)
      .mapToPk()
      .fieldName("source_archive_id")
      .strictNullable()
      .deleteRule("set null"),
    imageArchiveId: p
      .manyToOne(ScanUpload)
      .mapToPk()
      .fieldName("image_archive_id")
      .strictNullable()
      .deleteRule("set null"),
    errorMessage: p.text().strictNullable(),
    /** Running only: when the attempt counts as lost without news from its worker. */
    leaseExpiresAt: p.datetime().strictNullable(),
    createdAt: p.datetime().defaultRaw("now()"),
    startedAt: p.datetime().strictNullable(),
    completedAt: p.datetime().strictNullable(),
    supersededAt: p.datetime().strictNullable(),
    updatedAt: p.datetime().defaultRaw("now()"),
    /** Succeeded scans: distinct purls whose registry license was still being asked then, and the first 100. */
    pendingLicenseCount: p.integer().default(0),
    pendingLicensePurls: p.json<string[]>().defaultRaw("'[]'::jsonb"),
  },
  indexes: [
    // Lists: a project's scans, the caller's teams' scans, the admin queue (also the age sweep), newest first.
    { name: "scans_project_created", properties: ["projectId", "createdAt", "id"] },
    { name: "scans_team_created", properties: ["teamId", "createdAt", "id"] },
    { name: "scans_created", properties: ["createdAt", "id"] },
    { name: "scans_status_created", properties: ["status", "createdAt"] },
    { name: "scans_kind_created", properties: ["kind", "createdAt"] },
    // The team cap and the batch's already_exists count only queued and running scans.
    { name: "scans_team_active", properties: ["teamId"], where: "status in ('queued', 'running')" },
    {
      name: "scans_project_ref_active",
      properties: ["projectId", "kind", "normalizedRef"],
      where: "status in ('queued', 'running')",
    },
    // The supersede rule's peers and the release list: succeeded scans of a project by ref.
    {
      name: "scans_project_ref_succeeded",
      properties: ["projectId", "normalizedRef", "createdAt"],
      where: "status = 'succeeded'",
    },
    { name: "scans_project_release", properties: ["projectId", "release"], where: "release is not null" },
    // The upload sweep's NOT EXISTS, and the set-null of a deleted upload.
    { name: "scans_sbom_upload", properties: ["sbomUploadId"], where: "sbom_upload_id is not null" },
    { name: "scans_source_archive", properties: ["sourceArchiveId"], where: "source_archive_id is not null" },
    { name: "scans_image_archive", properties: ["imageArchiveId"], where: "image_archive_id is not null" },
    // The typical duration behind retry_after_seconds: a team's recent finished scans.
    { name: "scans_team_completed", properties: ["teamId", "completedAt"], where: "status = 'succeeded'" },
    // Sweeps: lost workers, superseded snapshots.
    { name: "scans_lease", properties: ["leaseExpiresAt"], where: "status = 'running'" },
    { name: "scans_superseded", properties: ["supersededAt"], where: "superseded_at is not null" },
  ],
  checks: [
    { name: "scans_kind_check", expression: "kind in ('source', 'container', 'sbom')" },
    { name: "scans_status_check", expression: "status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')" },
    { name: "scans_trigger_check", expression: "trigger in ('manual', 'webhook', 'schedule')" },
    { name: "scans_progress_percent_check", expression: "progress_percent >= 0 and progress_percent <= 100" },
    { name: "scans_attempt_check", expression: "attempt >= 1" },
    { name: "scans_check", expression: "(status = 'running') = (lease_expires_at is not null)" },
  ],
});

export type ScanRow = InferEntity<typeof Scan>;
