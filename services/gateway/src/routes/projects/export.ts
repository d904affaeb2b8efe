// GET /v1/projects/export.csv: the list's rows for the same filters, unpaged, streamed as CSV while the projects
// service streams them (ProjectService.ExportProjects).
import { z } from "zod";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { csvDownload } from "../../http/csv.ts";
import { filterOf, projectFilterQuery } from "./fields.ts";
import { CSV_COLUMNS, projectJson } from "./views.ts";

export function projectExportRoutes(ctx: GatewayContext): Route[] {
  const projects = ctx.clients.projects.projects;
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/export.csv",
      summary: "Export the caller's projects as CSV",
      description: `The rows GET /v1/projects answers for the same filters, in the same order, without paging. Columns: ${CSV_COLUMNS.join(", ")}.`,
      tags: ["projects"],
      operationId: "exportProjectsCsv",
      auth: ctx.auth.route("caller"),
      request: { query: projectFilterQuery },
      responses: {
        200: {
          description: "CSV, a header line then one line per project",
          schema: z.string(),
          contentType: "text/csv",
          stream: true,
        },
      },
      handler: ({ query, call }) => {
        return csvDownload(
          "projects.csv",
          CSV_COLUMNS,
          () => projects.exportProjects({ filter: filterOf(query) }, call),
          projectJson,
        );
      },
    }),
  ];
}
