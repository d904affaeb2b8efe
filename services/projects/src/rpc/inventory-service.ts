// InventoryService: this file registers; the use cases live in inventory-ingest.ts.
import type { ConnectRouter } from "@connectrpc/connect";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import type { InventoryServiceDeps } from "./inventory-deps.ts";
import { inventoryIngestHandlers } from "./inventory-ingest.ts";

export type { InventoryServiceDeps } from "./inventory-deps.ts";

export function registerInventoryService(router: ConnectRouter, deps: InventoryServiceDeps): void {
  router.service(InventoryService, {
    ...inventoryIngestHandlers(deps),
  });
}
