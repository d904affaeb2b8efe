// Approval requests and organization verdicts as the API shows them (the spec's Approval request and Organization
// verdict resources).
import { timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { Approval } from "@sca/proto/sca/policy/v1/approvals_pb.ts";
import type { OrganizationVerdict, ProjectVerdict } from "@sca/proto/sca/policy/v1/organization_verdicts_pb.ts";
import { z } from "zod";

export const APPROVAL_STATUSES = ["pending", "under_review", "approved", "rejected"] as const;
export const APPROVAL_ACTIONS = ["under_review", "approved", "rejected"] as const;
export const VERDICT_STATUSES = ["under_review", "approved", "rejected"] as const;

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

export const approvalSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    project_name: z.string(),
    project_slug: z.string(),
    team_id: z.uuid(),
    component_id: z.uuid(),
    component_name: z.string(),
    component_purl: z.string().nullable(),
    status: z.enum(APPROVAL_STATUSES),
    version: z.number().int().meta({ description: "The If-Match counter; 1 on creation, +1 per transition" }),
    requested_by_user_id: z.uuid(),
    requested_by_name: z.string().nullable().meta({ description: "Full name, else e-mail; null when unknown" }),
    requested_at: z.string(),
    decided_by_user_id: z.uuid().nullable(),
    decided_at: z.string().nullable(),
    decision_note: z.string().nullable(),
  })
  .meta({ id: "ApprovalRequest" });

export function approvalJson(a: Approval): z.input<typeof approvalSchema> {
  return {
    id: a.id,
    project_id: a.projectId,
    project_name: a.projectName,
    project_slug: a.projectSlug,
    team_id: a.teamId,
    component_id: a.componentId,
    component_name: a.componentName,
    component_purl: a.componentPurl ?? null,
    status: a.status as (typeof APPROVAL_STATUSES)[number],
    version: a.version,
    requested_by_user_id: a.requestedByUserId,
    requested_by_name: a.requestedByName || null,
    requested_at: iso(a.requestedAt)!,
    decided_by_user_id: a.decidedByUserId ?? null,
    decided_at: iso(a.decidedAt),
    decision_note: a.decisionNote ?? null,
  };
}

/** `status` as one value or a comma-separated list (repeated parameters too). */
export const statusList = () =>
  z
    .union([z.string().max(200), z.array(z.string().max(200)).max(10)])
    .optional()
    .transform((v) =>
      (v === undefined ? [] : Array.isArray(v) ? v : [v])
        .flatMap((s) => s.split(","))
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    );

export const approvalQuery = z.object({
  status: statusList().meta({ description: `One or a comma-separated list of ${APPROVAL_STATUSES.join(", ")}` }),
  team_id: z.uuid().optional(),
  project_id: z.uuid().optional().meta({ description: "A project outside the caller's teams gives an empty page" }),
  requested_by_user_id: z.uuid().optional(),
  from_dt: z.iso.datetime({ offset: true }).optional().meta({ description: "requested_at at or after (RFC 3339)" }),
  to_dt: z.iso.datetime({ offset: true }).optional().meta({ description: "requested_at before (RFC 3339)" }),
});

export const stamp = (value: string | undefined) => (value ? timestampFromDate(new Date(value)) : undefined);

export const verdictSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    component_id: z.uuid(),
    justification: z.string().meta({ description: "The published reason, shown to every member" }),
    status: z.enum(VERDICT_STATUSES),
    version: z.number().int(),
    requested_by_user_id: z.uuid().nullable().meta({ description: "Writers only (null for other readers)" }),
    decided_by_user_id: z.uuid().nullable().meta({ description: "Writers only" }),
    decided_at: z.string().nullable(),
    decision_note: z.string().nullable().meta({ description: "The deliberation: writers only" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "OrganizationVerdict" });

export function verdictJson(v: OrganizationVerdict): z.input<typeof verdictSchema> {
  return {
    id: v.id,
    organization_id: v.organizationId,
    component_id: v.componentId,
    justification: v.justification,
    status: v.status as (typeof VERDICT_STATUSES)[number],
    version: v.version,
    requested_by_user_id: v.requestedByUserId ?? null,
    decided_by_user_id: v.decidedByUserId ?? null,
    decided_at: iso(v.decidedAt),
    decision_note: v.decisionNote ?? null,
    created_at: iso(v.createdAt)!,
    updated_at: iso(v.updatedAt)!,
  };
}

export const projectVerdictSchema = z
  .object({
    component_id: z.uuid(),
    project_id: z.uuid(),
    scope: z.literal("organization"),
    status: z.enum(VERDICT_STATUSES),
    justification: z.string(),
  })
  .meta({ id: "ProjectVerdict" });

export function projectVerdictJson(v: ProjectVerdict): z.input<typeof projectVerdictSchema> {
  return {
    component_id: v.componentId,
    project_id: v.projectId,
    scope: "organization",
    status: v.status as (typeof VERDICT_STATUSES)[number],
    justification: v.justification,
  };
}
