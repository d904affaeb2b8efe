// MaliciousComponentsFlagged: components of a project that became flagged (a scan's stamping, or a re-stamp after
// the malicious snapshot changed), one event per project written to the outbox in the transaction that flagged
// them, so each becoming flagged is published once (the notifier raises package.malicious from it).
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { enqueue } from "@sca/kafka";
import { FlaggedComponentSchema, MaliciousComponentsFlaggedSchema } from "@sca/proto/sca/events/v1/projects_pb.ts";
import type { FlaggedComponentRow } from "../store/inventory/component-states.ts";
import { projectDomainEvents } from "./project-events.ts";

/** Components named in one event; the count is whole. */
const EVENT_LIST_MAX = 500;

export type FlagCause = "scan" | "snapshot_refresh";

/** Enqueues one event per project of `rows`; answers how many. */
export function emitMaliciousFlagged(
  em: EntityManager,
  rows: readonly FlaggedComponentRow[],
  cause: FlagCause,
  at: Date,
): number {
  const byProject = new Map<string, FlaggedComponentRow[]>();
  for (const r of rows) byProject.set(r.projectId, [...(byProject.get(r.projectId) ?? []), r]);
  for (const [projectId, flagged] of byProject) {
    const first = flagged[0]!;
    enqueue(
      em,
      projectDomainEvents,
      projectId,
      create(MaliciousComponentsFlaggedSchema, {
        occurredAt: timestampFromDate(at),
        projectId,
        teamId: first.teamId,
        scanId: first.scanId,
        cause,
        flaggedCount: flagged.length,
        components: flagged.slice(0, EVENT_LIST_MAX).map((c) =>
          create(FlaggedComponentSchema, {
            componentId: c.componentId,
            name: c.name,
            version: c.version ?? "",
            purl: c.purl ?? "",
            maliciousId: c.maliciousId ?? "",
            maliciousSource: c.maliciousSource ?? "",
          }),
        ),
      }),
    );
  }
  return byProject.size;
}
