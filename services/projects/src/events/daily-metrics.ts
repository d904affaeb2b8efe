// The dashboards' daily job (docs/dashboards.md, "Daily metrics"): counts again the figures of the projects written
// since they were counted (a re-match, a triage change the write paths did not reach), a batch per transaction, then
// writes the day's rows of every project, team and organization that has none yet. Idempotent per day: a second
// run the same day writes nothing; rows are never rewritten.
import type { MikroORM } from "@mikro-orm/postgresql";
import { lockProjectInventory } from "../store/inventory/ingestion.ts";
import { projectsBehind, recordDay, refreshProjectFigures } from "../store/portfolio/figures.ts";
import { isoDate } from "../domain/dashboards.ts";

/** Projects counted again per transaction. */
const BATCH = 100;

/** One run at `now`: how many projects were counted again and how many daily rows were written. */
export async function recordDailyMetrics(
  orm: MikroORM,
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
  const written = await orm.em.fork().transactional((em) => recordDay(em, isoDate(now)));
  return { recounted, written };
}
