// Reading a project's inventory: a page of the anchor's components (ListComponents), one of them with raw_data
// (GetComponent), or every matching row (ExportComponents, the CSV). Who may read follows the project's rules
// (domain/project-access.ts); a project the caller may not read is hidden (404), as the release anchors want.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import { ProblemError, type FieldViolation } from "@sca/problem";
import { jsonArrayBytes } from "@sca/paging";
import {
  ComponentSchema,
  ExportComponentsResponseSchema,
  GetComponentResponseSchema,
  ListComponentsResponseSchema,
  type Component,
  type ExportComponentsRequest,
  type GetComponentRequest,
  type ListComponentsRequest,
} from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { encodedMessage, requireCaller } from "@sca/rpc";
import { componentFilterOf, componentWindowOf, rejectViolations, sortKeysOf } from "../domain/component-list.ts";
import { mayRead } from "../domain/project-access.ts";
import { isUuid } from "../domain/project-fields.ts";
import {
  componentOfSnapshot,
  exportComponents,
  listComponents,
  listComponentsJson,
  type ComponentListRow,
  type InventoryComponentRow,
} from "../store/inventory/component-list.ts";
import { projectWithNewestSnapshot } from "../store/inventory/snapshots.ts";
import type { InventoryHandlers, InventoryServiceDeps } from "./inventory-deps.ts";
import { anchoredSnapshot, anchorViolations, projectNotFound, readableProjectId } from "./readable-inventory.ts";

const EXPORT_CHUNK = 1000;
export const optional = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

export function componentView(row: ComponentListRow | InventoryComponentRow): Component {
  return create(ComponentSchema, {
    id: row.id,
    componentId: row.componentId,
    projectId: row.projectId,
    scanId: row.scanId,
    name: row.name,
    version: optional(row.version),
    purl: optional(row.purl),
    direct: optional(row.direct),
    depth: optional(row.depth),
    dependencyScope: optional(row.dependencyScope),
    license: optional(row.license),
    licenseCategory: optional(row.licenseCategory),
    severityMax: optional(row.severityMax),
    currencyState: optional(row.currencyState),
    eolState: optional(row.eolState),
    maliciousState: optional(row.maliciousState),
    currencyLatest: optional(row.currencyLatest),
    currencyLatestReleaseDate: optional(row.currencyLatestReleaseDate),
    eolCycle: optional(row.eolCycle),
    eolDate: optional(row.eolDate),
    eolProduct: optional(row.eolProduct),
    eolSource: optional(row.eolSource),
    maliciousId: optional(row.maliciousId),
    maliciousSource: optional(row.maliciousSource),
    // Rows of the list are loaded without raw_data (the key may still be there, undefined).
    rawData:
      "rawData" in row && row.rawData !== undefined ? Buffer.from(JSON.stringify(row.rawData), "utf8") : undefined,
    createdAt: timestampFromDate(row.createdAt),
    updatedAt: timestampFromDate(row.updatedAt),
    key: row.key,
    type: optional(row.type),
    group: optional(row.groupName),
    cpe: optional(row.cpe),
    hashes: row.hashes,
    declaredLicense: optional(row.declaredLicense),
    concludedLicense: optional(row.concludedLicense),
    licenseIds: row.licenseIds,
    supplier: optional(row.supplier),
    author: optional(row.author),
    description: optional(row.description),
    bomRefs: row.bomRefs,
  });
}

export function inventoryReadHandlers(
  deps: InventoryServiceDeps,
): InventoryHandlers<"listComponents" | "getComponent" | "exportComponents"> {
  return {
    async listComponents(req: ListComponentsRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      if (!isUuid(req.projectId)) throw projectNotFound();
      // The project and its newest snapshot in one query (what an unanchored list, the common case, needs): a
      // prepared statement outside any transaction, so no EntityManager of the request's own is forked for it; the
      // page's read, when it is not kept, makes one.
      const found = await projectWithNewestSnapshot(deps.orm.em, req.projectId.toLowerCase());
      if (!found || !mayRead(caller, found.project)) throw projectNotFound();
      const v: FieldViolation[] = [];
      anchorViolations(req.anchor, v);
      const filter = componentFilterOf(req.filter, v);
      const sort = sortKeysOf(req.sort, req.order, v);
      const window = componentWindowOf(req.limit, req.offset, v);
      rejectViolations(v);
      const anchored = req.anchor?.scanId !== undefined || req.anchor?.release !== undefined;
      const snapshot = anchored ? await anchoredSnapshot(deps, found.project.id, req.anchor) : found.snapshot;
      if (!snapshot) return create(ListComponentsResponseSchema, { total: 0, ...window, scanId: "" });
      if (req.itemsAsJson) {
        // Encoded once: a kept page goes out as these bytes to every request that reads it.
        const read = async () => {
          const page = await listComponentsJson(deps.orm.em.fork(), snapshot, filter, sort, window);
          const itemsJson = jsonArrayBytes(page.rows);
          return encodedMessage(ListComponentsResponseSchema, {
            itemsJson,
            total: page.total,
            ...window,
            scanId: snapshot.scanId,
          });
        };
        // The newest snapshot's pages are kept under its count of writes (anchored ones are read each time).
        return anchored ? read() : deps.componentPages.read(found.snapshot!, [filter, sort, window], read);
      }
      const { rows, total } = await listComponents(deps.orm.em.fork(), snapshot, filter, sort, window);
      return create(ListComponentsResponseSchema, {
        items: rows.map(componentView),
        total,
        ...window,
        scanId: snapshot.scanId,
      });
    },

    async getComponent(req: GetComponentRequest, ctx: HandlerContext) {
      const projectId = await readableProjectId(deps, ctx, req.projectId);
      const v: FieldViolation[] = [];
      anchorViolations(req.anchor, v);
      rejectViolations(v);
      const notFound = () => ProblemError.notFound("No such component in this project.");
      if (!isUuid(req.componentId)) throw notFound();
      const snapshot = await anchoredSnapshot(deps, projectId, req.anchor);
      if (!snapshot) throw notFound();
      const row = await componentOfSnapshot(deps.orm.em.fork(), snapshot.scanId, req.componentId.toLowerCase());
      if (!row) throw notFound();
      return create(GetComponentResponseSchema, { component: componentView(row) });
    },

    async *exportComponents(req: ExportComponentsRequest, ctx: HandlerContext) {
      const projectId = await readableProjectId(deps, ctx, req.projectId);
      const v: FieldViolation[] = [];
      anchorViolations(req.anchor, v);
      const filter = componentFilterOf(req.filter, v);
      sortKeysOf(req.sort, req.order, v);
      rejectViolations(v);
      const snapshot = await anchoredSnapshot(deps, projectId, req.anchor);
      if (!snapshot) return;
      for await (const rows of exportComponents(deps.orm.em.fork(), snapshot.scanId, filter, EXPORT_CHUNK)) {
        if (ctx.signal.aborted) return;
        yield create(ExportComponentsResponseSchema, { items: rows.map(componentView) });
      }
    },
  };
}
