// Reads across the caller's readable projects (PortfolioService of projects; docs/dashboards.md): a component
// wherever it is held (GET /v1/components/{component_id}), one license finding (GET /v1/license_findings/{id}) and
// the portfolio search with its CSV (paths ours: GET /v1/portfolio/search, /v1/portfolio/search/export.csv).
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { SearchHit, SearchPortfolioRequestSchema } from "@sca/proto/sca/projects/v1/portfolio_pb.ts";
import { SEARCH_PAGE_SIZE } from "@sca/paging";
import { sizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { csvDownload } from "../../http/csv.ts";
import { componentJson, componentSchema } from "./components.ts";
import { licenseFindingJson, licenseFindingSchema } from "./licenses.ts";

const text = () => z.string().nullable();

const holdingSchema = z.object({
  project_id: z.uuid(),
  project_name: z.string(),
  team_id: z.uuid(),
  scan_id: z.uuid().meta({ description: "The project's newest succeeded scan, which holds the component" }),
  scanned_at: z.iso.datetime(),
  release: text(),
  component: componentSchema.meta({ description: "The component's row in that snapshot, its license included" }),
  vulnerabilities: z
    .array(
      z.object({
        finding_id: z.uuid().meta({ description: "GET /v1/vulnerability_findings/{finding_id}" }),
        vulnerability_id: z.string(),
        severity: z.string(),
        status: z.string().meta({ description: "The finding's VEX status" }),
        known_exploited: z.boolean(),
      }),
    )
    .meta({ description: "Its open findings there, most severe first" }),
});

const portfolioComponentSchema = z
  .object({
    component_id: z.uuid(),
    name: z.string(),
    version: text(),
    purl: text(),
    projects: z.array(holdingSchema).meta({ description: "By project name; at most 500" }),
    truncated: z.boolean().meta({ description: "More readable projects hold it than listed" }),
  })
  .meta({ id: "PortfolioComponent" });

const searchHitSchema = z
  .object({
    project_id: z.uuid(),
    project_name: z.string(),
    team_id: z.uuid(),
    scan_id: z.uuid(),
    release: text(),
    component_id: z.uuid(),
    component_row_id: z.uuid(),
    name: z.string(),
    version: text(),
    purl: text(),
    license: text(),
    direct: z.boolean().nullable(),
    dependency_path: z.array(z.string()).meta({
      description:
        "From the project's root (the SBOM's primary component) to this component, each name@version; empty when " +
        "no dependency edge leads to it",
    }),
    vulnerabilities: z.array(z.string()).meta({ description: "Its open findings' vulnerability ids" }),
  })
  .meta({ id: "PortfolioSearchHit" });

function searchHitJson(h: SearchHit) {
  return {
    project_id: h.projectId,
    project_name: h.projectName,
    team_id: h.teamId,
    scan_id: h.scanId,
    release: h.release ?? null,
    component_id: h.componentId,
    component_row_id: h.componentRowId,
    name: h.name,
    version: h.version ?? null,
    purl: h.purl ?? null,
    license: h.license ?? null,
    direct: h.direct ?? null,
    dependency_path: h.dependencyPath,
    vulnerabilities: h.vulnerabilities,
  };
}

export const SEARCH_CSV_COLUMNS = [
  "project_id",
  "project_name",
  "team_id",
  "scan_id",
  "release",
  "component_id",
  "name",
  "version",
  "purl",
  "license",
  "direct",
  "dependency_path",
  "vulnerabilities",
] as const;

const searchQuery = z.object({
  package: z.string().max(255).optional().meta({ description: "A package's name, exact (log4j-core, lodash)" }),
  version: z.string().max(255).optional().meta({
    description:
      "With package: the exact version, or a range read in each component's ecosystem order (>=2.0,<2.15; [2.0,2.15); alternatives joined by ||)",
  }),
  ecosystem: z
    .string()
    .max(64)
    .optional()
    .meta({ description: "With package: the purl type (npm, maven, pypi, golang, ...)" }),
  vulnerability: z.string().max(255).optional().meta({ description: "A vulnerability id or one of its aliases" }),
  license: z.string().max(255).optional().meta({ description: "An SPDX license id the component's license names" }),
});
type SearchQuery = z.output<typeof searchQuery>;

const requestOf = (q: SearchQuery): MessageInitShape<typeof SearchPortfolioRequestSchema> => ({
  packageName: q.package,
  version: q.version,
  ecosystem: q.ecosystem,
  vulnerability: q.vulnerability,
  license: q.license,
});

export function portfolioRoutes(ctx: GatewayContext): Route[] {
  const portfolio = ctx.clients.projects.portfolio;
  const caller = ctx.auth.route("caller");
  const searchDescription =
    "Every project the caller may read whose newest succeeded scan holds the package (name, optionally version and " +
    "ecosystem), a vulnerability (id or alias, open findings only) or a license (SPDX id): each holding component " +
    "with the dependency path from the project's root to it. Exactly one of package, vulnerability, license.";
  return [
    defineRoute({
      method: "get",
      path: "/v1/components/{component_id}",
      summary: "Get a component across the portfolio",
      description:
        "A component id is the same in every project and scan: the component in the newest snapshot of each project " +
        "the caller may read that holds it, with its license and open vulnerabilities there. 404 when the caller can " +
        "read none.",
      tags: ["components"],
      operationId: "getComponent",
      auth: caller,
      request: { params: z.object({ component_id: z.uuid() }) },
      responses: {
        200: { description: "The component and its holders", schema: portfolioComponentSchema },
        404: problemResponse("No project the caller may read holds the component"),
      },
      handler: async ({ params, call }) => {
        const r = await portfolio.getPortfolioComponent({ componentId: params.component_id }, call);
        const first = r.holdings[0]!.component!;
        return {
          status: 200,
          body: {
            component_id: r.componentId,
            name: first.name,
            version: first.version ?? null,
            purl: first.purl ?? null,
            truncated: r.truncated,
            projects: r.holdings.map((h) => ({
              project_id: h.projectId,
              project_name: h.projectName,
              team_id: h.teamId,
              scan_id: h.component!.scanId,
              scanned_at: timestampDate(h.scannedAt!).toISOString(),
              release: h.release ?? null,
              component: componentJson(h.component!),
              vulnerabilities: h.vulnerabilities.map((v) => ({
                finding_id: v.findingId,
                vulnerability_id: v.vulnerabilityId,
                severity: v.severity,
                status: v.status,
                known_exploited: v.knownExploited,
              })),
            })),
          },
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/license_findings/{finding_id}",
      summary: "Get a license finding",
      description:
        "One row of GET /v1/projects/{id}/licenses (a component of a snapshot, by its id), under the list's rule: " +
        "anyone who may read the project; 404 otherwise.",
      tags: ["license findings"],
      operationId: "getLicenseFinding",
      auth: caller,
      request: { params: z.object({ finding_id: z.uuid() }) },
      responses: {
        200: { description: "The license finding", schema: licenseFindingSchema },
        404: problemResponse("No such license finding, or its project is not readable"),
      },
      handler: async ({ params, call }) => {
        const { component } = await portfolio.getLicenseFinding({ findingId: params.finding_id }, call);
        return { status: 200, body: licenseFindingJson(component!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/portfolio/search/export.csv",
      summary: "Export a portfolio search as CSV",
      description: `${searchDescription} Every hit, unpaged (at most 100000). Columns: ${SEARCH_CSV_COLUMNS.join(", ")}.`,
      tags: ["portfolio"],
      operationId: "exportPortfolioSearchCsv",
      auth: caller,
      request: { query: searchQuery },
      responses: {
        200: {
          description: "CSV, a header line then one line per hit",
          schema: z.string(),
          contentType: "text/csv",
          stream: true,
        },
        422: problemResponse("None or several of package, vulnerability, license; or a value too long"),
      },
      handler: ({ query, call }) =>
        csvDownload(
          "portfolio-search.csv",
          SEARCH_CSV_COLUMNS,
          async function* () {
            yield await portfolio.searchPortfolio({ ...requestOf(query), unpaged: true }, call);
          },
          searchHitJson,
        ),
    }),
    defineRoute({
      method: "get",
      path: "/v1/portfolio/search",
      summary: "Search the portfolio",
      description: searchDescription,
      tags: ["portfolio"],
      operationId: "searchPortfolio",
      auth: caller,
      request: { query: sizePagination.query(SEARCH_PAGE_SIZE).extend(searchQuery.shape) },
      responses: {
        200: { description: "A page of hits", schema: sizePagination.envelope(searchHitSchema) },
        422: problemResponse("None or several of package, vulnerability, license; a window past its bounds"),
      },
      handler: async ({ query, call }) => {
        const r = await portfolio.searchPortfolio({ ...requestOf(query), page: query.page, size: query.size }, call);
        return { status: 200, body: sizePagination.page(r.items.map(searchHitJson), r.total, query) };
      },
    }),
  ];
}
