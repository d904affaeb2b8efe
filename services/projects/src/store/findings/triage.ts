// finding_triage: the triage (VEX status) of a vulnerability on a project's component (docs/findings.md). A change
// locks the row, then writes it through the entity; the rows of new findings are opened in one set-based statement
// (raw SQL, ADR 5: thousands of rows at once).
import { LockMode, raw, type EntityData, type EntityManager } from "@mikro-orm/postgresql";
import { boundStatement, SNAPSHOT } from "@sca/db";
import type { Triage } from "../../domain/vex-status.ts";
import { OPEN_STATES } from "../../domain/vulnerability-sla.ts";
import { FindingTriage, type FindingTriageRow } from "../entities/findings.ts";

export interface TriageKey {
  projectId: string;
  componentKey: string;
  vulnerabilityId: string;
}

/**
 * A triage as locked for a change: the status in force, its version, and the change waiting for a second person;
 * with its key, which the writes take.
 */
export type LockedTriage = Triage & {
  key: TriageKey;
  version: number;
  pending: (Triage & { by: string | null }) | null;
};

/** Locks the triage row for the change (inside em.transactional); null when it does not exist. */
export async function lockTriage(em: EntityManager, key: TriageKey): Promise<LockedTriage | null> {
  const row = await em.findOne(
    FindingTriage,
    { projectId: key.projectId, componentKey: key.componentKey, vulnerabilityId: key.vulnerabilityId },
    {
      ...SNAPSHOT,
      lockMode: LockMode.PESSIMISTIC_WRITE,
      fields: [
        "status",
        "justification",
        "responses",
        "detail",
        "version",
        "pendingStatus",
        "pendingJustification",
        "pendingResponses",
        "pendingDetail",
        "pendingBy",
      ],
    },
  );
  if (!row) return null;
  const pending =
    row.pendingStatus === null
      ? null
      : ({
          status: row.pendingStatus,
          justification: row.pendingJustification,
          responses: row.pendingResponses ?? [],
          detail: row.pendingDetail,
          by: row.pendingBy,
        } as Triage & { by: string | null });
  return {
    key,
    status: row.status,
    justification: row.justification,
    responses: row.responses,
    detail: row.detail,
    version: row.version,
    pending,
  } as LockedTriage;
}

const NO_PENDING = {
  pendingStatus: null,
  pendingJustification: null,
  pendingResponses: null,
  pendingDetail: null,
  pendingBy: null,
  pendingAt: null,
};

/** Writes `changes` on the locked row, its version incremented; answers the new version (the locked one plus one). */
async function writeLocked(
  em: EntityManager,
  locked: LockedTriage,
  changes: EntityData<FindingTriageRow>,
): Promise<number> {
  const version = locked.version + 1;
  await em.nativeUpdate(FindingTriage, locked.key, { ...changes, version });
  return version;
}

/**
 * Writes the triage; answers the new version. Closing a finding ends its SLA breach, so a reopened finding past its
 * window is a new breach, alerted again. A change waiting for confirmation is dropped: the status just set (or
 * confirmed) is the newer decision.
 */
export async function writeTriage(
  em: EntityManager,
  locked: LockedTriage,
  t: Triage,
  by: string | null,
): Promise<number> {
  return writeLocked(em, locked, {
    status: t.status,
    justification: t.justification,
    responses: t.responses,
    detail: t.detail,
    updatedAt: raw("now()"),
    updatedBy: by,
    ...(OPEN_STATES.includes(t.status) ? {} : { slaBreachedAt: null }),
    ...NO_PENDING,
  });
}

/** Records a change waiting for a second person (the status in force stays); answers the new version. */
export async function writePendingTriage(
  em: EntityManager,
  locked: LockedTriage,
  t: Triage,
  by: string | null,
): Promise<number> {
  return writeLocked(em, locked, {
    pendingStatus: t.status,
    pendingJustification: t.justification,
    pendingResponses: t.responses,
    pendingDetail: t.detail,
    pendingBy: by,
    pendingAt: raw("now()"),
  });
}

/** Drops the change waiting for a second person; answers the new version. */
export async function dropPendingTriage(em: EntityManager, locked: LockedTriage): Promise<number> {
  return writeLocked(em, locked, NO_PENDING);
}

/** Triage rows for (component, vulnerability) pairs their project never had; existing triage is kept as it is. */
export async function openTriage(
  em: EntityManager,
  findings: { projectId: string; componentKey: string; vulnerabilityId: string }[],
): Promise<void> {
  if (findings.length === 0) return;
  await boundStatement(
    em,
    `insert into finding_triage (project_id, component_key, vulnerability_id)
     select distinct project_id, component_key, vulnerability_id
     from jsonb_to_recordset($1::jsonb) as x(project_id uuid, component_key text, vulnerability_id text)
     on conflict do nothing`,
    [
      JSON.stringify(
        findings.map((f) => ({
          project_id: f.projectId,
          component_key: f.componentKey,
          vulnerability_id: f.vulnerabilityId,
        })),
      ),
    ],
  );
}
