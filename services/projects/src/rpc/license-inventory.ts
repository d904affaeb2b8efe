// LicenseInventoryService: what the policy service needs to derive a project's license obligations and write its
// notice (docs/obligations.md), read as the caller (readable-inventory.ts: hidden as 404) from the project's newest
// snapshot: the distinct license expressions counted in SQL, and the components' attribution fields streamed.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { ProblemError } from "@sca/problem";
import {
  ExportAttributionsResponseSchema,
  LicenseInventoryService,
  SummariseProjectLicensesResponseSchema,
  type LicensedProject,
} from "@sca/proto/sca/projects/v1/license_inventory_pb.ts";
import { attributionPages, licenseExpressionCounts } from "../store/inventory/licenses.ts";
import type { ProjectRow } from "../store/projects.ts";
import type { InventoryServiceDeps } from "./inventory-deps.ts";
import { anchoredSnapshot, readableProject } from "./readable-inventory.ts";

/** Distinct expressions one summary carries; a real project has a few dozen. */
export const EXPRESSION_CAP = 5000;
/** Components per attribution chunk. */
const CHUNK_SIZE = 500;

function licensedProject(row: ProjectRow): Omit<LicensedProject, "$typeName"> {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    teamId: row.teamId,
    organizationId: row.organizationId ?? undefined,
    distributionModel: row.distributionModel ?? undefined,
    aiUsageContext: row.aiUsageContext ?? undefined,
  };
}

export function registerLicenseInventoryService(router: ConnectRouter, deps: Pick<InventoryServiceDeps, "orm">): void {
  router.service(LicenseInventoryService, {
    async summariseProjectLicenses(req, ctx) {
      const project = await readableProject(deps, ctx, req.projectId);
      const snapshot = await anchoredSnapshot(deps, project.id, undefined);
      const counts = snapshot
        ? await licenseExpressionCounts(deps.orm.em.fork(), snapshot.scanId, EXPRESSION_CAP)
        : { expressions: [], truncated: false };
      return create(SummariseProjectLicensesResponseSchema, {
        project: licensedProject(project),
        scanId: snapshot?.scanId ?? "",
        componentCount: snapshot?.componentCount ?? 0,
        expressions: counts.expressions.map((e) => ({
          expression: e.expression ?? "",
          componentCount: e.componentCount,
        })),
        expressionCap: EXPRESSION_CAP,
        truncated: counts.truncated,
      });
    },

    async *exportAttributions(req, ctx) {
      const project = await readableProject(deps, ctx, req.projectId);
      const snapshot = await anchoredSnapshot(deps, project.id, undefined);
      if (!snapshot) throw ProblemError.notFound("The project has no succeeded scan yet.");
      yield create(ExportAttributionsResponseSchema, {
        part: {
          case: "header",
          value: {
            project: licensedProject(project),
            scanId: snapshot.scanId,
            componentCount: snapshot.componentCount,
          },
        },
      });
      for await (const page of attributionPages(deps.orm.em.fork(), snapshot.scanId, CHUNK_SIZE)) {
        if (ctx.signal.aborted) return;
        yield create(ExportAttributionsResponseSchema, {
          part: {
            case: "chunk",
            value: {
              components: page.map((c) => ({
                name: c.name,
                group: c.groupName ?? undefined,
                version: c.version ?? undefined,
                purl: c.purl ?? undefined,
                license: c.license ?? undefined,
                supplier: c.supplier ?? undefined,
                author: c.author ?? undefined,
                copyright: c.copyright ?? undefined,
              })),
            },
          },
        });
      }
    },
  });
}
