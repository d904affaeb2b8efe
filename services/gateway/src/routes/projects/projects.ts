// /v1/projects: create, list, get, PATCH and archive (ProjectService). Roles: any member reads (team-scoped; an
// `organization`-visible project also to its organization), developer creates and archives, team_admin updates.
import { z } from "zod";
import { pageSizeRule } from "@sca/paging";
import { sizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { createProjectBody, filterOf, projectFilterQuery, projectInput } from "./fields.ts";
import { AI_USAGE_CONTEXTS, DISTRIBUTION_MODELS, projectJson, projectSchema, VISIBILITIES } from "./views.ts";

const TAGS = ["projects"];
/** The list's page rule: the spec's numbered `size` shape (docs/projects.md). */
export const PROJECT_PAGE_SIZE = pageSizeRule({ defaultSize: 20, maxSize: 100 });
const projectParams = z.object({ id: z.uuid() });
const missing = problemResponse("No such project");
const notMember = problemResponse("Not a member of the project's team, or a role below the one the action needs");

// In a PATCH an empty string clears the field where the spec allows it.
const clearable = <T extends readonly [string, ...string[]]>(values: T) => z.union([z.enum(values), z.literal("")]);

const patchBody = z
  .object({
    name: z.string().min(1).max(255).optional(),
    description: z.string().max(10_000).optional().meta({ description: "Empty string clears it" }),
    default_branch: z.string().max(255).optional().meta({ description: "Empty string clears it" }),
    git_url: z.string().max(2048).optional().meta({ description: "Empty string clears it" }),
    visibility: z.enum(VISIBILITIES).optional(),
    business_unit: z.string().max(255).optional().meta({ description: "Empty string clears it" }),
    declared_license: z.string().max(1024).optional().meta({ description: "Empty string clears it" }),
    distribution_model: clearable(DISTRIBUTION_MODELS).optional().meta({ description: "Empty string clears it" }),
    ai_usage_context: clearable(AI_USAGE_CONTEXTS).optional().meta({ description: "Empty string clears it" }),
    owner_contact: z.string().max(255).optional().meta({ description: "Empty string clears it" }),
    git_credential: z
      .string()
      .max(4096)
      .optional()
      .meta({ description: "Write-only, stored encrypted; empty leaves the stored one" }),
    clear_git_credential: z.boolean().default(false),
  })
  .refine((b) => !(b.clear_git_credential && b.git_credential), {
    path: ["clear_git_credential"],
    message: "cannot be combined with a non-empty git_credential",
  })
  .meta({ id: "ProjectPatch" });

export function projectRoutes(ctx: GatewayContext): Route[] {
  const projects = ctx.clients.projects.projects;
  const caller = ctx.auth.route("caller");
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects",
      summary: "List the caller's projects",
      description:
        "Projects of the caller's teams, and organization-visible projects of its organizations (super_admin: all), " +
        "ordered by name. Archived ones only with include_archived=true.",
      tags: TAGS,
      operationId: "listProjects",
      auth: caller,
      request: { query: sizePagination.query(PROJECT_PAGE_SIZE).extend(projectFilterQuery.shape) },
      responses: { 200: { description: "A page of projects", schema: sizePagination.envelope(projectSchema) } },
      handler: async ({ query, call }) => {
        const list = await projects.listProjects(
          { filter: filterOf(query), page: { page: query.page, pageSize: query.size } },
          call,
        );
        return { status: 200, body: sizePagination.page(list.items.map(projectJson), list.page?.total ?? 0, query) };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/projects",
      summary: "Create a project",
      description: "developer or above on team_id (super_admin: any team).",
      tags: TAGS,
      operationId: "createProject",
      auth: caller,
      request: { body: createProjectBody },
      responses: {
        201: { description: "The project", schema: projectSchema },
        403: problemResponse("Below developer on the team"),
        409: problemResponse("The team already has an active project with this slug (project_id names it)"),
      },
      handler: async ({ body, call }) => {
        const { project } = await projects.createProject({ project: projectInput(body) }, call);
        return { status: 201, body: projectJson(project!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}",
      summary: "Get a project",
      description: "403 when the caller is not a member of its team; 404 when there is no such project.",
      tags: TAGS,
      operationId: "getProject",
      auth: caller,
      request: { params: projectParams },
      responses: { 200: { description: "The project", schema: projectSchema }, 403: notMember, 404: missing },
      handler: async ({ params, call }) => {
        const { project } = await projects.getProject({ projectId: params.id }, call);
        return { status: 200, body: projectJson(project!) };
      },
    }),
    defineRoute({
      method: "patch",
      path: "/v1/projects/{id}",
      summary: "Update a project",
      description:
        "team_admin. An omitted field is unchanged; an empty string clears business_unit, declared_license, " +
        "distribution_model, ai_usage_context, owner_contact (and description, default_branch, git_url). git_credential is " +
        "write-only; clear_git_credential removes it and cannot be combined with a non-empty git_credential.",
      tags: TAGS,
      operationId: "updateProject",
      auth: caller,
      request: { params: projectParams, body: patchBody },
      responses: {
        200: { description: "The project", schema: projectSchema },
        403: notMember,
        404: missing,
        409: problemResponse("The project is archived"),
      },
      handler: async ({ params, body, call }) => {
        const { project } = await projects.updateProject(
          {
            projectId: params.id,
            name: body.name,
            description: body.description,
            defaultBranch: body.default_branch,
            gitUrl: body.git_url,
            visibility: body.visibility,
            businessUnit: body.business_unit,
            declaredLicense: body.declared_license,
            distributionModel: body.distribution_model,
            aiUsageContext: body.ai_usage_context,
            ownerContact: body.owner_contact,
            gitCredential: body.git_credential,
            clearGitCredential: body.clear_git_credential,
          },
          call,
        );
        return { status: 200, body: projectJson(project!) };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/projects/{id}",
      summary: "Archive a project",
      description: "developer or above. Soft delete: archived_at is set (again: no change); the slug becomes free.",
      tags: TAGS,
      operationId: "archiveProject",
      auth: caller,
      request: { params: projectParams },
      responses: { 204: { description: "Archived" }, 403: notMember, 404: missing },
      handler: async ({ params, call }) => {
        await projects.archiveProject({ projectId: params.id }, call);
        return { status: 204 };
      },
    }),
  ];
}
