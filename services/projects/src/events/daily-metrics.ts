// The dashboards' daily job (docs/dashboards.md, "Daily metrics"): counts again the figures of the projects written
// since they were counted (a re-match, a triage change the write paths did not reach), a batch per transaction, then
// has policy judge the gate outcome of each project without a row of the day from its kept figures (a batch per
// call), writes those projects' rows, then the day's rows of every team and organization that has none yet.
// Idempotent per day: a second run the same day writes nothing; rows are never rewritten.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { GateResults } from "../clients/gate-results.ts";
import { lockProjectInventory } from "../store/inventory/ingestion.ts";
import {
  gateFiguresToJudge,
  projectsBehind,
  recordProjectDays,
  recordTeamAndOrganizationDay,
  refreshProjectFigures,
} from "../store/portfolio/figures.ts";
import { isoDate } from "../domain/dashboards.ts";

/** Projects counted again per transaction. */
const BATCH = 100;
/** Projects judged per policy call (policy takes at most 1,000). */
const JUDGE_BATCH = 500;

/** One run at `now`: how many projects were counted again and how many daily rows were written. */
export async function recordDailyMetrics(
  orm: MikroORM,
  gate: Pick<GateResults, "judgeFigures">,
  now: Date,
  signal: AbortSignal,
): Promise<{ recounted: number; written: number }> {
  let recounted = 0;
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    if (signal.aborted) return { recounted, written: 0 };
    const ids = await projectsBehind(orm.em.fork(), BATCH, after);
    if (ids.length === 0) break;
    await orm.em.fork().transactional(async (em) => {
      for (const id of ids) {
        // Ingestion's lock: no snapshot lands while its figures are counted.
        await lockProjectInventory(em, id);
        await refreshProjectFigures(em, [id]);
      }
    });
    recounted += ids.length;
    after = ids.at(-1)!;
  }
  const day = isoDate(now);
  let written = 0;
  after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    if (signal.aborted) return { recounted, written };
    const figures = await gateFiguresToJudge(orm.em.fork(), { day, afterId: after, limit: JUDGE_BATCH });
    if (figures.length === 0) break;
    // Policy unreachable: the run fails before any team's row, and the next hour's run judges again.
    const judged = await gate.judgeFigures(figures);
    written += await orm.em.fork().transactional((em) => recordProjectDays(em, day, judged));
    after = figures.at(-1)!.projectId;
  }
  written += await orm.em.fork().transactional((em) => recordTeamAndOrganizationDay(em, day));
  return { recounted, written };
}
