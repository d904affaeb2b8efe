// GET /v1/projects/{id}/assignees (ProjectAssigneeService): the people work on the project may be assigned to,
// members of its team holding developer or above (groups above the team too with the group cascade).
// docs/approvals.md, "Project assignees".
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const assigneeSchema = z
  .object({
    user_id: z.uuid(),
    display_name: z.string().meta({ description: "Full name, else e-mail" }),
    role: z.enum(["developer", "team_admin", "group_admin"]),
    via_team_id: z.uuid().meta({ description: "Where the role is held: the project's team or a group above it" }),
  })
  .meta({ id: "ProjectAssignee" });

export function projectAssigneeRoutes(ctx: GatewayContext): Route[] {
  const assignees = ctx.clients.projects.assignees;
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/assignees",
      summary: "List who work on a project may be assigned to",
      description:
        "Any reader of the project. Active people holding developer or above on the project's team, or on a group " +
        "above it when GROUP_CASCADE_ENABLED; each once with their strongest role, by display name.",
      tags: ["projects"],
      operationId: "listProjectAssignees",
      auth: ctx.auth.route("caller"),
      request: { params: z.object({ id: z.uuid() }) },
      responses: {
        200: {
          description: "The assignable people",
          schema: z.object({ members: z.array(assigneeSchema), total: z.number().int().min(0) }),
        },
        403: problemResponse("Not a member of the project's team"),
        404: problemResponse("No such project"),
      },
      handler: async ({ params, call }) => {
        const answer = await assignees.listProjectAssignees({ projectId: params.id }, call);
        return {
          status: 200,
          body: {
            members: answer.members.map((m) => ({
              user_id: m.userId,
              display_name: m.displayName,
              role: m.role as "developer" | "team_admin" | "group_admin",
              via_team_id: m.viaTeamId,
            })),
            total: answer.total,
          },
        };
      },
    }),
  ];
}
