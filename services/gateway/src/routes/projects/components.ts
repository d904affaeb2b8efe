// A project's component inventory (InventoryService): GET /v1/projects/{id}/components (the spec's offset list with
// every filter, sort and anchor), its CSV export, and one component. Members read; a project the caller may not
// read is 404, as is a scan_id or release the project has no succeeded scan of (docs/inventory.md).
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { Component } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { FINDING_SEVERITIES } from "@sca/vocabulary";
import { offsetPagination } from "../../api/pagination.ts";
import { booleanParam, listParam, listValues, snapshotAnchorQuery } from "../../api/query-params.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { csvDownload } from "../../http/csv.ts";
import { authenticatedOf } from "../../http/authenticate.ts";
import { keptPages } from "../../http/kept-pages.ts";
import { PROJECT_WRITE_FENCES, writeFences } from "@sca/redis";
import { PROJECT_PAGE_SIZE } from "@sca/paging";

const TAGS = ["components"];
const missing = problemResponse("No such project (or not readable), or no succeeded scan for scan_id / release");

const componentQuery = snapshotAnchorQuery.extend({
  search: z.string().max(255).optional().meta({ description: "Case-insensitive part of the name or the purl" }),
  severity: listParam().meta({ description: FINDING_SEVERITIES.join(", ") }),
  "severity[]": listParam(),
  license_category: listParam(),
  "license_category[]": listParam(),
  direct: booleanParam(),
  dependency_scope: listParam().meta({
    description: "required, optional, unspecified; unknown values are dropped (only unknown values: empty page)",
  }),
  "dependency_scope[]": listParam(),
  eol: booleanParam(),
  outdated: booleanParam(),
  malicious: booleanParam().meta({ description: "false includes never-assessed components" }),
  sort: z
    .string()
    .max(100)
    .optional()
    .meta({ description: "name (default), severity, license; comma-separated, a leading - inverts a field" }),
  order: z.enum(["asc", "desc"]).default("asc"),
});
type ComponentQuery = z.output<typeof componentQuery>;

function requestOf(q: ComponentQuery) {
  return {
    anchor: { scanId: q.scan_id, release: q.release },
    filter: {
      search: q.search,
      severity: listValues(q.severity, q["severity[]"]),
      licenseCategory: listValues(q.license_category, q["license_category[]"]),
      direct: q.direct,
      dependencyScope: listValues(q.dependency_scope, q["dependency_scope[]"]),
      eol: q.eol,
      outdated: q.outdated,
      malicious: q.malicious,
    },
    sort: q.sort ?? "",
    order: q.order,
  };
}

const iso = (t: Component["createdAt"]) => (t ? timestampDate(t) : new Date(0)).toISOString();

function rawDataOf(c: Component): Record<string, unknown> {
  return c.rawData.length ? (JSON.parse(Buffer.from(c.rawData).toString("utf8")) as Record<string, unknown>) : {};
}

/** The detail: the list's fields and raw_data. */
export function componentDetailJson(c: Component) {
  return { ...componentJson(c), raw_data: rawDataOf(c) };
}

/** The spec's Component resource (the fields later stages fill are null or empty) and what the SBOM said. */
export function componentJson(c: Component) {
  return {
    id: c.id,
    component_id: c.componentId,
    project_id: c.projectId,
    scan_id: c.scanId,
    name: c.name,
    version: c.version ?? null,
    purl: c.purl ?? null,
    direct: c.direct ?? null,
    depth: c.depth ?? null,
    dependency_scope: c.dependencyScope ?? null,
    license: c.license ?? null,
    license_category: c.licenseCategory ?? null,
    severity_max: c.severityMax ?? null,
    currency_state: c.currencyState ?? null,
    currency_latest: c.currencyLatest ?? null,
    currency_latest_release_date: c.currencyLatestReleaseDate ?? null,
    eol_state: c.eolState ?? null,
    eol_cycle: c.eolCycle ?? null,
    eol_date: c.eolDate ?? null,
    eol_product: c.eolProduct ?? null,
    eol_source: c.eolSource ?? null,
    malicious_state: c.maliciousState ?? null,
    malicious_id: c.maliciousId ?? null,
    malicious_source: c.maliciousSource ?? null,
    obligations: c.obligations,
    vulnerabilities: c.vulnerabilities,
    type: c.type ?? null,
    group: c.group ?? null,
    cpe: c.cpe ?? null,
    hashes: c.hashes.map((h) => ({ algorithm: h.algorithm, value: h.value })),
    declared_license: c.declaredLicense ?? null,
    concluded_license: c.concludedLicense ?? null,
    license_ids: c.licenseIds,
    supplier: c.supplier ?? null,
    author: c.author ?? null,
    description: c.description ?? null,
    bom_refs: c.bomRefs,
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
  };
}

const text = () => z.string().nullable();
const componentFields = {
  id: z.uuid().meta({ description: "This component row of the snapshot" }),
  component_id: z.uuid().meta({ description: "The component's identity across scans and projects" }),
  project_id: z.uuid(),
  scan_id: z.uuid(),
  name: z.string(),
  version: text(),
  purl: text(),
  direct: z.boolean().nullable(),
  depth: z.number().int().nullable(),
  dependency_scope: text().meta({ description: "required, optional or null" }),
  license: text().meta({ description: "The concluded license expression, else the declared one" }),
  license_category: text(),
  severity_max: text(),
  currency_state: text(),
  currency_latest: text(),
  currency_latest_release_date: text(),
  eol_state: text(),
  eol_cycle: text(),
  eol_date: text(),
  eol_product: text(),
  eol_source: text(),
  malicious_state: text(),
  malicious_id: text(),
  malicious_source: text(),
  obligations: z.array(z.string()),
  vulnerabilities: z.array(z.string()),
  type: text(),
  group: text(),
  cpe: text(),
  hashes: z.array(z.object({ algorithm: z.string(), value: z.string() })),
  declared_license: text(),
  concluded_license: text(),
  license_ids: z.array(z.string()),
  supplier: text(),
  author: text(),
  description: text(),
  bom_refs: z.array(z.string()),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
};
export const componentSchema = z.object(componentFields).meta({ id: "Component" });
export const componentPageSchema = offsetPagination.envelope(componentSchema);
const componentDetailSchema = z
  .object({ ...componentFields, raw_data: z.record(z.string(), z.unknown()) })
  .meta({ id: "ComponentDetail" });

export const COMPONENT_CSV_COLUMNS = [
  "id",
  "component_id",
  "name",
  "version",
  "purl",
  "direct",
  "depth",
  "dependency_scope",
  "license",
  "license_category",
  "severity_max",
  "currency_state",
  "eol_state",
  "malicious_state",
  "type",
  "group",
  "supplier",
] as const;

export function componentRoutes(ctx: GatewayContext): Route[] {
  const inventory = ctx.clients.projects.inventory;
  const pages = keptPages(
    writeFences(ctx.redis, PROJECT_WRITE_FENCES),
    ctx.config.COMPONENT_PAGE_CACHE_MB * 1024 * 1024,
  );
  const caller = ctx.auth.route("caller");
  const projectParams = z.object({ id: z.uuid() });
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/components/export.csv",
      summary: "Export a project's components as CSV",
      description:
        "The rows GET /v1/projects/{id}/components answers for the same anchor and filters, without paging; sort and " +
        `order are accepted (and checked) but the export walks name then id. Columns: ${COMPONENT_CSV_COLUMNS.join(", ")}.`,
      tags: TAGS,
      operationId: "exportComponentsCsv",
      auth: caller,
      request: { params: projectParams, query: componentQuery },
      responses: {
        200: {
          description: "CSV, a header line then one line per component",
          schema: z.string(),
          contentType: "text/csv",
          stream: true,
        },
        404: missing,
      },
      handler: ({ params, query, call }) => {
        return csvDownload(
          "components.csv",
          COMPONENT_CSV_COLUMNS,
          () => inventory.exportComponents({ projectId: params.id, ...requestOf(query) }, call),
          componentJson,
        );
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/components",
      summary: "List a project's components",
      description:
        "The components of the anchor's snapshot: scan_id (a succeeded scan of the project) wins over release (the " +
        "newest succeeded scan with that label); neither: the newest succeeded scan. A project not scanned yet answers " +
        "an empty page. Sorted by name unless sort says otherwise; ties end in name then id.",
      tags: TAGS,
      operationId: "listComponents",
      auth: caller,
      request: { params: projectParams, query: offsetPagination.query(PROJECT_PAGE_SIZE).extend(componentQuery.shape) },
      responses: {
        // Rows as projects writes them in JSON, held equal to componentJson (test/component-json-rows.test.ts),
        // which names exactly componentSchema's fields (test/component-json.pure.test.ts).
        200: { description: "A page of components", schema: componentPageSchema, shaped: true },
        404: missing,
      },
      handler: async ({ params, query, call, req }) => {
        const request = { ...requestOf(query), limit: query.limit, offset: query.offset };
        // Kept under the project's write fence (ADR 12): a repeated read skips the call to projects.
        const body = await pages.read(params.id, authenticatedOf(req).caller, request, async () => {
          const page = await inventory.listComponents({ projectId: params.id, ...request, itemsAsJson: true }, call);
          return offsetPagination.serialisedPage(page.itemsJson, page.total, query);
        });
        return { status: 200, body };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/components/{component_id}",
      summary: "Get one of a project's components",
      description:
        "The component (by component_id) in the anchor's snapshot (scan_id, release or the newest), with raw_data " +
        "(at most JSONB_ROW_SIZE_LIMIT_BYTES; a cut one carries $truncated).",
      tags: TAGS,
      operationId: "getProjectComponent",
      auth: caller,
      request: { params: projectParams.extend({ component_id: z.uuid() }), query: snapshotAnchorQuery },
      responses: {
        200: { description: "The component", schema: componentDetailSchema },
        404: problemResponse("No such project (or not readable), anchor or component"),
      },
      handler: async ({ params, query, call }) => {
        const { component } = await inventory.getComponent(
          {
            projectId: params.id,
            componentId: params.component_id,
            anchor: { scanId: query.scan_id, release: query.release },
          },
          call,
        );
        return { status: 200, body: componentDetailJson(component!) };
      },
    }),
  ];
}
