// The daily vulnerability-SLA sweep (VULN_SLA_ALERTS_ENABLED, docs/findings.md "Remediation windows"): marks the
// open findings of every project's newest snapshot that are past their window and writes one
// VulnerabilitySlaBreached per project to the outbox, in the transaction that marks them, so each breach is
// published exactly once (the notifier turns it into an alert).
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { MikroORM } from "@mikro-orm/postgresql";
import { enqueue } from "@sca/kafka";
import { SlaBreachSchema, VulnerabilitySlaBreachedSchema } from "@sca/proto/sca/events/v1/projects_pb.ts";
import { breachCutoffs, SLA_SEVERITIES, slaDueAt, type SlaWindows } from "../domain/vulnerability-sla.ts";
import { markSlaBreaches, type MarkedBreach } from "../store/findings/sla-breaches.ts";
import { projectDomainEvents } from "./project-events.ts";

/** Rows marked per transaction. */
const BATCH = 2_000;
/** Breaches named in one event; the count is whole. */
const EVENT_LIST_MAX = 500;

/** One sweep at `now`; answers how many findings it marked in breach. */
export async function sweepVulnerabilitySla(
  orm: MikroORM,
  windows: SlaWindows,
  now: Date,
  signal: AbortSignal,
): Promise<number> {
  const cutoffs = breachCutoffs(windows, now);
  let marked = 0;
  for (;;) {
    if (signal.aborted) return marked;
    const batch = await orm.em.fork().transactional(async (em) => {
      const rows = await markSlaBreaches(em, cutoffs, now, BATCH);
      for (const [projectId, breaches] of byProject(rows)) {
        const first = breaches[0]!;
        enqueue(
          em,
          projectDomainEvents,
          projectId,
          create(VulnerabilitySlaBreachedSchema, {
            occurredAt: timestampFromDate(now),
            projectId,
            teamId: first.teamId,
            scanId: first.scanId,
            breachedCount: breaches.length,
            breaches: breaches.slice(0, EVENT_LIST_MAX).map((b) =>
              create(SlaBreachSchema, {
                findingId: b.findingId,
                vulnerabilityId: b.vulnerabilityId,
                severity: b.severity,
                componentName: b.componentName,
                componentVersion: b.componentVersion ?? "",
                purl: b.purl ?? "",
                firstDetectedAt: timestampFromDate(b.firstDetectedAt),
                dueAt: timestampFromDate(slaDueAt(b.severity, b.firstDetectedAt, windows)!),
              }),
            ),
          }),
        );
      }
      return rows.length;
    });
    marked += batch;
    if (batch < BATCH) return marked;
  }
}

/** The marked rows per project, most severe first within each. */
function byProject(rows: MarkedBreach[]): Map<string, MarkedBreach[]> {
  const rank = (s: string) => (SLA_SEVERITIES as readonly string[]).indexOf(s);
  const out = new Map<string, MarkedBreach[]>();
  for (const r of [...rows].sort((a, b) => rank(a.severity) - rank(b.severity))) {
    const list = out.get(r.projectId);
    if (list) list.push(r);
    else out.set(r.projectId, [r]);
  }
  return out;
}
