// Projects' messages as the spec's JSON resources (snake_case, ISO 8601 UTC times, null for absent), each with the
// zod schema that documents it and strips whatever it does not declare.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { BatchCreateProjectsResponse, Project } from "@sca/proto/sca/projects/v1/projects_pb.ts";

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);
const time = () => z.iso.datetime();

export const VISIBILITIES = ["team", "organization"] as const;
export const DISTRIBUTION_MODELS = ["internal", "saas", "binary", "source", "embedded"] as const;
export const AI_USAGE_CONTEXTS = ["internal", "product", "redistribute", "outputs-only"] as const;

const counts = () => z.record(z.string(), z.number().int());

export const projectSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    team_id: z.uuid(),
    team_name: z.string(),
    description: z.string().nullable(),
    default_branch: z.string().nullable(),
    git_url: z.string().nullable(),
    visibility: z.enum(VISIBILITIES),
    business_unit: z.string().nullable(),
    declared_license: z.string().nullable().meta({ description: "SPDX id or expression" }),
    distribution_model: z
      .enum(DISTRIBUTION_MODELS)
      .nullable()
      .meta({ description: "null: judged as if shipped every way" }),
    ai_usage_context: z.enum(AI_USAGE_CONTEXTS).nullable().meta({ description: "null: full terms apply" }),
    owner_contact: z.string().nullable(),
    has_git_credential: z.boolean().meta({ description: "The credential itself is write-only and never returned" }),
    group_path: z
      .array(z.string())
      .meta({ description: "Group names from the top of the tree down to the team, the team included" }),
    created_by_user_id: z.uuid().nullable(),
    created_by_user_name: z.string().nullable(),
    archived_at: time().nullable(),
    last_scan_at: time().nullable(),
    latest_scan_id: z.uuid().nullable(),
    latest_scan_status: z.string().nullable(),
    license_category_summary: counts().meta({
      description: "License category to component count of the newest snapshot (uncategorized: not categorised yet)",
    }),
    severity_summary: counts().meta({
      description:
        "Worst severity to component count of the newest snapshot (components without a vulnerability left out; {} when none has one)",
    }),
    scan_count: z.number().int(),
    release_count: z.number().int(),
    created_at: time(),
    updated_at: time(),
  })
  .meta({ id: "Project" });

export type ProjectJson = z.input<typeof projectSchema>;

export function projectJson(p: Project): ProjectJson {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    team_id: p.teamId,
    team_name: p.teamName,
    description: p.description ?? null,
    default_branch: p.defaultBranch ?? null,
    git_url: p.gitUrl ?? null,
    visibility: p.visibility as ProjectJson["visibility"],
    business_unit: p.businessUnit ?? null,
    declared_license: p.declaredLicense ?? null,
    distribution_model: (p.distributionModel ?? null) as ProjectJson["distribution_model"],
    ai_usage_context: (p.aiUsageContext ?? null) as ProjectJson["ai_usage_context"],
    owner_contact: p.ownerContact ?? null,
    has_git_credential: p.hasGitCredential,
    group_path: p.groupPath,
    created_by_user_id: p.createdByUserId ?? null,
    created_by_user_name: p.createdByUserName ?? null,
    archived_at: iso(p.archivedAt),
    last_scan_at: iso(p.lastScanAt),
    latest_scan_id: p.latestScanId ?? null,
    latest_scan_status: p.latestScanStatus ?? null,
    license_category_summary: p.licenseCategorySummary,
    severity_summary: p.severitySummary,
    scan_count: p.scanCount,
    release_count: p.releaseCount,
    created_at: iso(p.createdAt)!,
    updated_at: iso(p.updatedAt)!,
  };
}

export const batchResultSchema = z
  .object({
    all_succeeded: z.boolean(),
    total: z.number().int(),
    created: z.number().int(),
    already_existed: z.number().int(),
    failed: z.number().int(),
    failed_by_status: counts(),
    rows: z.array(
      z.object({
        index: z.number().int(),
        status: z.enum(["created", "already_exists", "forbidden", "invalid"]),
        project_id: z.uuid().nullable(),
        detail: z.string().nullable(),
        retry_after_seconds: z.number().int().nullable(),
      }),
    ),
  })
  .meta({ id: "ProjectBatchResult" });

export function batchResultJson(b: BatchCreateProjectsResponse): z.input<typeof batchResultSchema> {
  return {
    all_succeeded: b.allSucceeded,
    total: b.total,
    created: b.created,
    already_existed: b.alreadyExisted,
    failed: b.failed,
    failed_by_status: b.failedByStatus,
    rows: b.rows.map((r) => ({
      index: r.index,
      status: r.status as "created",
      project_id: r.projectId ?? null,
      detail: r.detail ?? null,
      retry_after_seconds: null,
    })),
  };
}

/** The CSV export's columns, in order: the Project resource's fields. */
export const CSV_COLUMNS = Object.keys(projectSchema.shape) as (keyof ProjectJson)[];
