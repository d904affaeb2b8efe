// The retention sweep (docs/scans.md, "Retention"): walks the projects holding a scan the rules could delete, in
// project-id order (so a project whose candidates are all protected is passed once, not forever), applies the
// pure rules to each project's scans under a row lock, deletes what they select and reports it (ScansDeleted) in
// the same transaction. Replicas may sweep at once: the locks serialise them per project.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ScanOrchestratorConfig } from "../config.ts";
import { retentionHorizon, scansToDelete, type RetentionSettings } from "../domain/retention.ts";
import { emitScansDeleted } from "../events/scan-events.ts";
import { deleteScans, lockRetentionCandidates, retentionCandidateProjects } from "./scans.ts";

export function retentionSettings(
  config: Pick<
    ScanOrchestratorConfig,
    "SCAN_RETENTION_SUPERSEDED_GRACE_DAYS" | "SCAN_RETENTION_KEEP_LAST" | "SCAN_RETENTION_MAX_AGE_DAYS"
  >,
): RetentionSettings {
  return {
    supersededGraceDays: config.SCAN_RETENTION_SUPERSEDED_GRACE_DAYS,
    keepLast: config.SCAN_RETENTION_KEEP_LAST,
    maxAgeDays: config.SCAN_RETENTION_MAX_AGE_DAYS,
  };
}

const PROJECTS_PER_BATCH = 100;

export interface RetentionSweepResult {
  projects: number;
  deleted: number;
}

export async function sweepRetention(
  orm: MikroORM,
  settings: RetentionSettings,
  now: Date,
  signal: AbortSignal,
): Promise<RetentionSweepResult> {
  const horizon = retentionHorizon(now, settings);
  const result: RetentionSweepResult = { projects: 0, deleted: 0 };
  let after: string | null = null;
  while (!signal.aborted) {
    const projectIds = await retentionCandidateProjects(orm.em.fork(), horizon, after, PROJECTS_PER_BATCH);
    for (const projectId of projectIds) {
      if (signal.aborted) break;
      const deleted = await orm.em.fork().transactional(async (em) => {
        const ids = scansToDelete(await lockRetentionCandidates(em, projectId), now, settings).map((d) => d.id);
        if (ids.length === 0) return 0;
        const count = await deleteScans(em, ids);
        emitScansDeleted(em, projectId, ids, now);
        return count;
      });
      result.projects++;
      result.deleted += deleted;
    }
    if (projectIds.length < PROJECTS_PER_BATCH) break;
    after = projectIds.at(-1)!;
  }
  return result;
}
