// What the ScanService's handlers need, and the shape of a group of them.
import type { ServiceImpl } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ScanService } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";

export interface ScanServiceDeps {
  orm: MikroORM;
  /** Publishes soon after a commit that enqueued events. */
  wakeRelay: () => void;
}

/** Some of the ScanService's methods, typed as the service declares them. */
export type ScanHandlers<K extends keyof ServiceImpl<typeof ScanService>> = Pick<ServiceImpl<typeof ScanService>, K>;
