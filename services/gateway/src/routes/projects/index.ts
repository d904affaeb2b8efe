// Projects' routes, in the order the OpenAPI document lists them (the export before /v1/projects/{id}).
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { projectAssigneeRoutes } from "./assignees.ts";
import { projectBatchRoutes } from "./batch.ts";
import { componentRoutes } from "./components.ts";
import { dashboardRoutes } from "./dashboards.ts";
import { projectExportRoutes } from "./export.ts";
import { externalLookupRoutes } from "./external-lookups.ts";
import { fileLicenseRoutes } from "./file-licenses.ts";
import { inventoryViewRoutes } from "./inventory-views.ts";
import { licenseRoutes } from "./licenses.ts";
import { portfolioRoutes } from "./portfolio.ts";
import { maliciousWaiverRoutes } from "./malicious-waivers.ts";
import { projectOverviewRoutes } from "./overview.ts";
import { projectRoutes } from "./projects.ts";
import { sbomRoutes } from "./sbom.ts";
import { sbomSigningRoutes } from "./sbom-signing.ts";
import { vexRoutes } from "./vex.ts";
import { vulnerabilityRoutes } from "./vulnerabilities.ts";

export function projectsRoutes(ctx: GatewayContext): Route[] {
  return [
    ...projectExportRoutes(ctx),
    ...projectBatchRoutes(ctx),
    ...projectRoutes(ctx),
    ...componentRoutes(ctx),
    ...inventoryViewRoutes(ctx),
    ...sbomRoutes(ctx),
    ...sbomSigningRoutes(ctx),
    ...projectOverviewRoutes(ctx),
    ...vulnerabilityRoutes(ctx),
    ...licenseRoutes(ctx),
    ...fileLicenseRoutes(ctx),
    ...vexRoutes(ctx),
    ...externalLookupRoutes(ctx),
    ...projectAssigneeRoutes(ctx),
    ...portfolioRoutes(ctx),
    ...dashboardRoutes(ctx),
    ...maliciousWaiverRoutes(ctx),
  ];
}
