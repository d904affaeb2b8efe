// Shipping the log to AUDIT_EXPORT_URL (docs/audit.md): batches of entries older than the lag, in chain order, each
// posted once the previous one was accepted; the position moves only after a 2xx. A run ships until it has sent
// every entry old enough (or the collector fails: the next run starts again from the stored position).
import type { MikroORM } from "@mikro-orm/postgresql";
import type { AuditCollector } from "../clients/audit-collector.ts";
import { exportablePrefix, exportBatch } from "../domain/audit-export.ts";
import { entriesAfter } from "../store/audit-log.ts";
import { advanceExportPosition, claimExportPosition } from "../store/export-position.ts";

export interface AuditExportSettings {
  batchSize: number;
  lagSeconds: number;
}

export interface ShipResult {
  batches: number;
  entries: number;
  /** Another replica held the position. */
  busy: boolean;
}

export async function shipAuditLog(
  orm: MikroORM,
  collector: AuditCollector,
  settings: AuditExportSettings,
  signal: AbortSignal,
  clock: () => Date = () => new Date(),
): Promise<ShipResult> {
  const result: ShipResult = { batches: 0, entries: 0, busy: false };
  for (;;) {
    if (signal.aborted) return result;
    // The position row stays locked while the batch is posted: two replicas never send the same batch.
    const step = await orm.em.fork().transactional(async (em) => {
      const position = await claimExportPosition(em);
      if (position === null) return "busy" as const;
      const cutoff = new Date(clock().getTime() - settings.lagSeconds * 1000);
      const entries = exportablePrefix(await entriesAfter(em, position, settings.batchSize), cutoff);
      if (entries.length === 0) return "done" as const;
      await collector.send(exportBatch(entries, clock()), signal);
      await advanceExportPosition(em, entries[entries.length - 1]!.seq);
      result.batches++;
      result.entries += entries.length;
      return entries.length === settings.batchSize ? ("more" as const) : ("done" as const);
    });
    if (step === "busy") return { ...result, busy: true };
    if (step === "done") return result;
  }
}
