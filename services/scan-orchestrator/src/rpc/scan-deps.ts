// What the ScanService's handlers need, and the shape of a group of them.
import type { ServiceImpl } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ArtefactStore } from "@sca/artefacts";
import type { ScanService } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import type { Projects } from "../clients/projects.ts";
import type { DiskLimits } from "../domain/admission.ts";

export interface ScanServiceDeps {
  orm: MikroORM;
  /** Publishes soon after a commit that enqueued events. */
  wakeRelay: () => void;
  /** The owner of projects, asked as the caller. */
  projects: Projects;
  /** Where uploads live; its volume's usage decides disk pressure. */
  artefacts: Pick<ArtefactStore, "usage">;
  settings: CreateSettings;
}

export interface CreateSettings {
  /** SCAN_MAX_CONCURRENT_PER_TEAM */
  maxConcurrentPerTeam: number;
  disk: DiskLimits;
  /** ARTEFACT_UPLOAD_TTL_HOURS */
  uploadTtlHours: number;
}

/** Some of the ScanService's methods, typed as the service declares them. */
export type ScanHandlers<K extends keyof ServiceImpl<typeof ScanService>> = Pick<ServiceImpl<typeof ScanService>, K>;
