// A project's releases (ScanService.ListProjectReleases of the scan-orchestrator): the succeeded scans carrying a
// release label, superseded ones included, newest first, in the Scan shape of the other scan lists. Read as a
// project's scans are read: members of its team (docs/scans.md, "Releases").
import { z } from "zod";
import { pageSizeRule } from "@sca/paging";
import { sizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { scanJson, scanSchema } from "./views.ts";

/** The spec's Projects table: page and size (1..100, default 20), bounds rejected. */
const RELEASE_PAGE_SIZE = pageSizeRule({ defaultSize: 20, maxSize: 100 });

export function releaseRoutes(ctx: GatewayContext): Route[] {
  const scans = ctx.clients["scan-orchestrator"].scans;
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/releases",
      summary: "List a project's releases",
      description:
        "The project's succeeded scans that carry a release label (metadata.release, else the SBOM's primary " +
        "component version), superseded ones included, newest first. release matches the label exactly (trimmed); " +
        "an unknown label gives an empty list. ref is a branch or a fully qualified ref, normalised as scans' refs " +
        "are (main = refs/heads/main). Members of the project's team.",
      tags: ["scans"],
      operationId: "listProjectReleases",
      auth: ctx.auth.route("caller"),
      request: {
        params: z.object({ id: z.uuid() }),
        query: sizePagination.query(RELEASE_PAGE_SIZE).extend({
          release: z.string().max(255).optional().meta({ description: "Exact release label, trimmed" }),
          ref: z
            .string()
            .max(255)
            .optional()
            .meta({ description: "Branch (bare name) or fully qualified ref (refs/heads/..., refs/tags/...)" }),
        }),
      },
      responses: {
        200: { description: "A page of releases (scans)", schema: sizePagination.envelope(scanSchema) },
        403: problemResponse("Not a member of the project's team"),
        404: problemResponse("No such project"),
      },
      handler: async ({ params, query, call }) => {
        const list = await scans.listProjectReleases(
          {
            projectId: params.id,
            release: query.release,
            ref: query.ref ?? "",
            page: { page: query.page, pageSize: query.size },
          },
          call,
        );
        return { status: 200, body: sizePagination.page(list.items.map(scanJson), list.page?.total ?? 0, query) };
      },
    }),
  ];
}
