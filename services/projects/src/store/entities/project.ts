import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import { fenceTriggers } from "../write-fences.ts";

/**
 * A project of a team. Teams, organizations and users live in identity: their ids are kept as given, without
 * foreign keys. The scan-fed columns start at their zero values and are kept current from scan events.
 */
export const Project = defineEntity({
  name: "Project",
  tableName: "projects",
  properties: {
    id: p.uuid().primary(),
    teamId: p.uuid(),
    /** The owning team's organization when the project was created (teams do not leave their organization). */
    organizationId: p.uuid().strictNullable(),
    name: p.string().length(255),
    slug: p.string().length(64),
    description: p.text().strictNullable(),
    defaultBranch: p.string().length(255).strictNullable(),
    gitUrl: p.string().length(2048).strictNullable(),
    visibility: p.string().length(16).$type<"team" | "organization">().default("team"),
    businessUnit: p.string().length(255).strictNullable(),
    declaredLicense: p.string().length(1024).strictNullable(),
    distributionModel: p.string().length(16).strictNullable(),
    aiUsageContext: p.string().length(16).strictNullable(),
    ownerContact: p.string().length(255).strictNullable(),
    /** The git credential sealed with @sca/secret-box (AES-256-GCM); never the plain value. Loaded only to unseal. */
    gitCredentialSealed: p.text().strictNullable().lazy().hidden(),
    hasGitCredential: p.boolean().default(false),
    createdByUserId: p.uuid().strictNullable(),
    archivedAt: p.datetime().strictNullable(),
    lastScanAt: p.datetime().strictNullable(),
    latestScanId: p.uuid().strictNullable(),
    latestScanStatus: p.string().length(16).strictNullable(),
    scanCount: p.integer().default(0),
    releaseCount: p.integer().default(0),
    severitySummary: p.json<Record<string, number>>().defaultRaw("'{}'::jsonb"),
    licenseCategorySummary: p.json<Record<string, number>>().defaultRaw("'{}'::jsonb"),
    createdAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  // A slug names one active project of a team; archiving frees it.
  uniques: [
    {
      name: "projects_team_slug",
      expression: "create unique index projects_team_slug on projects (team_id, slug) where archived_at is null",
    },
  ],
  indexes: [
    // The list: a caller's teams, ordered by name.
    { name: "projects_team_name", properties: ["teamId", "name", "id"] },
    // Organization-visible projects of the caller's organizations.
    { name: "projects_organization_visible", properties: ["organizationId"], where: "visibility = 'organization'" },
    {
      name: "projects_business_unit",
      expression: "create index projects_business_unit on projects (lower(business_unit))",
    },
    { name: "projects_distribution_model", properties: ["distributionModel"] },
  ],
  checks: [
    { name: "projects_visibility_check", expression: "visibility in ('team', 'organization')" },
    {
      name: "projects_distribution_model_check",
      expression: "distribution_model in ('internal', 'saas', 'binary', 'source', 'embedded')",
    },
    {
      name: "projects_ai_usage_context_check",
      expression: "ai_usage_context in ('internal', 'product', 'redistribute', 'outputs-only')",
    },
    { name: "projects_check", expression: "has_git_credential = (git_credential_sealed is not null)" },
  ],
  // The projects a transaction touched, for its write fence (ADR 12, store/write-fences.ts).
  triggers: fenceTriggers("projects"),
});

export type ProjectRow = InferEntity<typeof Project>;
