// POST /v1/projects:batch: up to 200 create bodies, each created on its own, in order. 201 when every row
// succeeded (created or already_exists), else 207 with each row's status. A row's field values are checked by the
// service, row by row (an `invalid` row); only a body that is not a list of objects of text fields is a 422.
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { projectInput } from "./fields.ts";
import { batchResultJson, batchResultSchema } from "./views.ts";

const text = () => z.string().optional();
const batchRow = z
  .object({
    name: text(),
    slug: text(),
    team_id: text(),
    description: text(),
    default_branch: text(),
    git_url: text(),
    visibility: text(),
    business_unit: text(),
    declared_license: text(),
    distribution_model: text(),
    ai_usage_context: text(),
    owner_contact: text(),
  })
  .meta({ description: "A project create body; its values are checked per row" });

export function projectBatchRoutes(ctx: GatewayContext): Route[] {
  const projects = ctx.clients.projects.projects;
  return [
    defineRoute({
      method: "post",
      path: "/v1/projects:batch",
      summary: "Create up to 200 projects",
      description:
        "developer or above on each row's team. Rows are processed in order and independently. Row statuses: created, " +
        "already_exists (the team has an active project with the slug: a success naming it), forbidden (not developer on the team), " +
        "invalid (detail names the fields).",
      tags: ["projects"],
      operationId: "batchCreateProjects",
      auth: ctx.auth.route("caller"),
      request: { body: z.object({ projects: z.array(batchRow).min(1).max(200) }) },
      responses: {
        201: { description: "Every row succeeded", schema: batchResultSchema },
        207: { description: "At least one row failed", schema: batchResultSchema },
        403: problemResponse("An API key whose grant cannot create projects"),
      },
      handler: async ({ body, call }) => {
        const answer = await projects.batchCreateProjects({ projects: body.projects.map(projectInput) }, call);
        return { status: answer.allSucceeded ? 201 : 207, body: batchResultJson(answer) };
      },
    }),
  ];
}
