// What the InventoryService's use cases need, and the shape of a group of its handlers.
import type { ServiceImpl } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import type { IdleCollection } from "@sca/runtime";
import type { LicenseCategories } from "../clients/license-categories.ts";
import type { ArtefactStore } from "@sca/artefacts";
import type { ComponentPageCache } from "../store/component-pages.ts";
import type { SigningCopyDeps } from "../store/inventory/signing-copy.ts";
import type { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";

export interface InventoryServiceDeps {
  orm: MikroORM;
  /** Where the scanner-runner leaves inventory artefacts (ARTEFACT_DIR). */
  artefacts: ArtefactStore;
  /** JSONB_ROW_SIZE_LIMIT_BYTES: a component's raw_data is cut to it. */
  rawDataMaxBytes: number;
  /** Unseals the project's git credential for the scanner-runner's clone (GetCloneSource). */
  credentialKey: Buffer;
  /** The list pages of newest snapshots kept (COMPONENT_PAGE_CACHE_MB). */
  componentPages: ComponentPageCache;
  /** Set when scans are signed with a key: ingestion then keeps the export for the signer (docs/signing.md). */
  signingCopy: SigningCopyDeps | null;
  /** Policy's categories, asked as a snapshot is ingested (rpc/inventory-ingest.ts). */
  licenseCategories: LicenseCategories;
  logger: Logger;
  /** A large ingestion's garbage is collected once projects is quiet (docs/benchmarks.md, `findings-at-scale`). */
  memory: IdleCollection;
}

/** Some of the InventoryService's methods, typed as the service declares them. */
export type InventoryHandlers<K extends keyof ServiceImpl<typeof InventoryService>> = Pick<
  ServiceImpl<typeof InventoryService>,
  K
>;
