// A project's license findings: GET /v1/projects/{id}/licenses and its CSV (the spec: "the CSV is the same rows as
// the list, unpaginated"). A license finding is a component of the anchor's snapshot with the license it carries
// and the category the license policies gave it (docs/findings.md, "License findings"); the rows are the component
// list's (InventoryService), so the anchor, hiding, paging and filters are the component list's rules.
import { z } from "zod";
import { ProblemError } from "@sca/problem";
import type { Component } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { offsetPagination } from "../../api/pagination.ts";
import { listParam, listValues, snapshotAnchorQuery } from "../../api/query-params.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { csvDownload } from "../../http/csv.ts";
import { PROJECT_PAGE_SIZE } from "@sca/paging";

const TAGS = ["license findings"];
const missing = problemResponse("No such project (or not readable), or no succeeded scan for scan_id / release");

/** The list's sort fields and the component list's column each one walks. */
const SORT_FIELDS: Record<string, string> = { license: "license", component: "name" };
const DEFAULT_SORT = "license,component";

const licenseQuery = snapshotAnchorQuery.extend({
  search: z.string().max(255).optional().meta({ description: "Case-insensitive part of the component's name or purl" }),
  license_category: listParam().meta({ description: "allowed, conditional, forbidden" }),
  "license_category[]": listParam(),
  direct: z
    .enum(["true", "false"])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === "true")),
  sort: z
    .string()
    .max(100)
    .optional()
    .meta({
      description:
        "Comma-separated fields among license and component, a leading - sorts that field descending; default " +
        "license,component; ties end in component name then id",
    }),
});
type LicenseQuery = z.output<typeof licenseQuery>;

/** The spec's sort rule in the component list's words; an unknown field is 422 naming it. */
export function componentSortOf(sort: string | undefined): string {
  const fields = (sort?.trim() ? sort : DEFAULT_SORT).split(",").map((f) => f.trim());
  return fields
    .map((f) => {
      const descending = f.startsWith("-");
      const column = SORT_FIELDS[descending ? f.slice(1) : f];
      if (!column)
        throw ProblemError.validation([
          { path: "sort", message: `unknown sort field "${f}" (fields: ${Object.keys(SORT_FIELDS).join(", ")})` },
        ]);
      return `${descending ? "-" : ""}${column}`;
    })
    .join(",");
}

function requestOf(q: LicenseQuery) {
  return {
    anchor: { scanId: q.scan_id, release: q.release },
    filter: {
      search: q.search,
      licenseCategory: listValues(q.license_category, q["license_category[]"]),
      direct: q.direct,
    },
    sort: componentSortOf(q.sort),
    order: "asc",
  };
}

export function licenseFindingJson(c: Component) {
  return {
    id: c.id,
    project_id: c.projectId,
    scan_id: c.scanId,
    component_id: c.componentId,
    component_name: c.name,
    component_version: c.version ?? null,
    purl: c.purl ?? null,
    direct: c.direct ?? null,
    license: c.license ?? null,
    license_ids: c.licenseIds,
    declared_license: c.declaredLicense ?? null,
    concluded_license: c.concludedLicense ?? null,
    license_category: c.licenseCategory ?? null,
  };
}

const text = () => z.string().nullable();
export const licenseFindingSchema = z
  .object({
    id: z.uuid().meta({ description: "The component row of the snapshot" }),
    project_id: z.uuid(),
    scan_id: z.uuid(),
    component_id: z.uuid(),
    component_name: z.string(),
    component_version: text(),
    purl: text(),
    direct: z.boolean().nullable(),
    license: text().meta({ description: "The concluded license expression, else the declared one; null: none known" }),
    license_ids: z.array(z.string()),
    declared_license: text(),
    concluded_license: text(),
    license_category: text().meta({ description: "allowed, conditional, forbidden; null: not categorised yet" }),
  })
  .meta({ id: "LicenseFinding" });

export const LICENSE_CSV_COLUMNS = [
  "id",
  "component_id",
  "component_name",
  "component_version",
  "purl",
  "direct",
  "license",
  "license_category",
  "declared_license",
  "concluded_license",
] as const;

export function licenseRoutes(ctx: GatewayContext): Route[] {
  const inventory = ctx.clients.projects.inventory;
  const caller = ctx.auth.route("caller");
  const projectParams = z.object({ id: z.uuid() });
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/licenses/export.csv",
      summary: "Export a project's license findings as CSV",
      description:
        "The rows GET /v1/projects/{id}/licenses answers for the same anchor and filters, without paging; sort is " +
        `checked but the export walks component name then id. Columns: ${LICENSE_CSV_COLUMNS.join(", ")}.`,
      tags: TAGS,
      operationId: "exportLicenseFindingsCsv",
      auth: caller,
      request: { params: projectParams, query: licenseQuery },
      responses: {
        200: {
          description: "CSV, a header line then one line per license finding",
          schema: z.string(),
          contentType: "text/csv",
          stream: true,
        },
        404: missing,
        422: problemResponse("A query parameter is not valid (an unknown sort field)"),
      },
      handler: ({ params, query, call }) => {
        const request = { projectId: params.id, ...requestOf(query) };
        return csvDownload(
          "licenses.csv",
          LICENSE_CSV_COLUMNS,
          () => inventory.exportComponents(request, call),
          licenseFindingJson,
        );
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/licenses",
      summary: "List a project's license findings",
      description:
        "One per component of the anchor's snapshot (scan_id wins over release; neither: the newest succeeded " +
        "scan): its license and the category the license policies gave it. A project not scanned yet answers an " +
        "empty page.",
      tags: TAGS,
      operationId: "listLicenseFindings",
      auth: caller,
      request: { params: projectParams, query: offsetPagination.query(PROJECT_PAGE_SIZE).extend(licenseQuery.shape) },
      responses: {
        200: { description: "A page of license findings", schema: offsetPagination.envelope(licenseFindingSchema) },
        404: missing,
        422: problemResponse("A query parameter is not valid (a window past its bounds, an unknown sort field)"),
      },
      handler: async ({ params, query, call }) => {
        const page = await inventory.listComponents(
          { projectId: params.id, ...requestOf(query), limit: query.limit, offset: query.offset },
          call,
        );
        return {
          status: 200,
          body: offsetPagination.page(page.items.map(licenseFindingJson), page.total, query),
        };
      },
    }),
  ];
}
