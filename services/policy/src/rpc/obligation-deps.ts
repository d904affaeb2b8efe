// What the ObligationService's handlers need, and the shape of a group of them.
import type { ServiceImpl } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ObligationService } from "@sca/proto/sca/policy/v1/obligations_pb.ts";
import type { LicenseInventory } from "../clients/license-inventory.ts";

export interface ObligationDeps {
  orm: MikroORM;
  inventory: LicenseInventory;
  /** Publishes the events a change just committed without waiting for the relay's next poll. */
  wakeRelay(): void;
}

/** Some of the ObligationService's methods, typed as the service declares them. */
export type ObligationHandlers<K extends keyof ServiceImpl<typeof ObligationService>> = Pick<
  ServiceImpl<typeof ObligationService>,
  K
>;
