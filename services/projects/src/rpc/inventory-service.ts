// InventoryService: this file registers; the use cases live in inventory-ingest.ts, inventory-reads.ts and
// inventory-views.ts.
import type { ConnectRouter } from "@connectrpc/connect";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import type { InventoryServiceDeps } from "./inventory-deps.ts";
import { inventoryCloneSourceHandlers } from "./inventory-clone-source.ts";
import { inventoryIngestHandlers } from "./inventory-ingest.ts";
import { inventoryReadHandlers } from "./inventory-reads.ts";
import { inventoryViewHandlers } from "./inventory-views.ts";

export type { InventoryServiceDeps } from "./inventory-deps.ts";

export function registerInventoryService(router: ConnectRouter, deps: InventoryServiceDeps): void {
  router.service(InventoryService, {
    ...inventoryIngestHandlers(deps),
    ...inventoryCloneSourceHandlers(deps),
    ...inventoryReadHandlers(deps),
    ...inventoryViewHandlers(deps),
  });
}
