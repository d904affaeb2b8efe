// The request fields the project routes share: the create body, the list's filters (the list and the CSV take the
// same ones).
import { z } from "zod";
import { AI_USAGE_CONTEXTS, DISTRIBUTION_MODELS, VISIBILITIES } from "./views.ts";

// Query strings carry text: only the words true and false are booleans.
const queryFlag = z
  .enum(["true", "false"])
  .default("false")
  .transform((v) => v === "true");

export const projectFilterQuery = z.object({
  team_id: z.uuid().optional(),
  include_archived: queryFlag.meta({ description: "Archived projects are left out unless true" }),
  q: z.string().max(255).optional().meta({ description: "Case-insensitive part of the name or the slug" }),
  business_unit: z.string().max(255).optional().meta({ description: "Exact, case-insensitive" }),
  distribution_model: z
    .enum([...DISTRIBUTION_MODELS, "unset"])
    .optional()
    .meta({ description: "`unset`: projects without one" }),
});

export type ProjectFilterQuery = z.output<typeof projectFilterQuery>;

/** The service's ProjectFilter for the query. */
export function filterOf(q: ProjectFilterQuery) {
  return {
    teamId: q.team_id,
    includeArchived: q.include_archived,
    q: q.q,
    businessUnit: q.business_unit,
    distributionModel: q.distribution_model,
  };
}

export const createProjectBody = z
  .object({
    name: z.string().min(1).max(255),
    slug: z
      .string()
      .min(1)
      .max(64)
      .meta({ description: "Lowercase letters, digits, '-', '_' or '.'; unique among the team's active projects" }),
    team_id: z.uuid(),
    description: z.string().max(10_000).optional(),
    default_branch: z.string().max(255).optional(),
    git_url: z
      .string()
      .max(2048)
      .optional()
      .meta({ description: "http(s), ssh or git URL, or user@host:path; never with a password" }),
    visibility: z.enum(VISIBILITIES).optional().meta({ description: "Default team" }),
    business_unit: z.string().max(255).optional(),
    declared_license: z.string().max(1024).optional().meta({ description: "SPDX id or expression" }),
    distribution_model: z.enum(DISTRIBUTION_MODELS).optional(),
    ai_usage_context: z.enum(AI_USAGE_CONTEXTS).optional(),
    owner_contact: z.string().max(255).optional(),
  })
  .meta({ id: "ProjectCreate" });

type CreateBody = { [K in keyof z.output<typeof createProjectBody>]?: string };

/** The service's ProjectInput for a create body (a batch row's fields are checked by the service, row by row). */
export function projectInput(b: CreateBody) {
  return {
    name: b.name ?? "",
    slug: b.slug ?? "",
    teamId: b.team_id ?? "",
    description: b.description,
    defaultBranch: b.default_branch,
    gitUrl: b.git_url,
    visibility: b.visibility,
    businessUnit: b.business_unit,
    declaredLicense: b.declared_license,
    distributionModel: b.distribution_model,
    aiUsageContext: b.ai_usage_context,
    ownerContact: b.owner_contact,
  };
}
