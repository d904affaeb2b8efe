// The obligation_fulfilments table: one fulfilment per (project, obligation), read for the obligation list, written
// by PUT and DELETE on the row locked for the change (docs/obligations.md).
import { LockMode, QueryOrder, type EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { ObligationFulfilment, type ObligationFulfilmentRow } from "./entities/obligation-fulfilment.ts";

export type { ObligationFulfilmentRow } from "./entities/obligation-fulfilment.ts";

export function lockFulfilment(
  em: EntityManager,
  projectId: string,
  obligationId: string,
): Promise<ObligationFulfilmentRow | null> {
  return em.findOne(
    ObligationFulfilment,
    { projectId, obligationId },
    { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE },
  );
}

/** The project's fulfilments of these obligations (the derived ones of a list), by obligation id. */
export async function fulfilmentsOf(
  em: EntityManager,
  projectId: string,
  obligationIds: string[],
): Promise<Map<string, ObligationFulfilmentRow>> {
  if (!obligationIds.length) return new Map();
  const rows = await em.find(ObligationFulfilment, { projectId, obligationId: { $in: obligationIds } }, SNAPSHOT);
  return new Map(rows.map((r) => [r.obligationId, r]));
}

export type FulfilmentColumns = Pick<ObligationFulfilmentRow, "note" | "evidenceUrl" | "fulfilledByUserId">;

export async function insertFulfilment(
  em: EntityManager,
  row: FulfilmentColumns &
    Pick<ObligationFulfilmentRow, "id" | "projectId" | "obligationId" | "obligation" | "license" | "createdAt">,
): Promise<ObligationFulfilmentRow> {
  await em.insert(ObligationFulfilment, { ...row, version: 1, updatedAt: row.createdAt });
  return (await em.findOne(ObligationFulfilment, { id: row.id }, SNAPSHOT))!;
}

export async function updateFulfilment(
  em: EntityManager,
  current: ObligationFulfilmentRow,
  columns: FulfilmentColumns & Pick<ObligationFulfilmentRow, "updatedAt">,
): Promise<ObligationFulfilmentRow> {
  await em.nativeUpdate(ObligationFulfilment, { id: current.id }, { ...columns, version: current.version + 1 });
  return (await em.findOne(ObligationFulfilment, { id: current.id }, SNAPSHOT))!;
}

export async function deleteFulfilment(em: EntityManager, id: string): Promise<void> {
  await em.nativeDelete(ObligationFulfilment, { id });
}

/** A page of the project's fulfilments, newest change first (ties by id). */
export async function listFulfilments(
  em: EntityManager,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: ObligationFulfilmentRow[]; total: number }> {
  const [rows, total] = await em.findAndCount(
    ObligationFulfilment,
    { projectId },
    {
      ...SNAPSHOT,
      orderBy: { updatedAt: QueryOrder.DESC, id: QueryOrder.DESC },
      limit: page.limit,
      offset: page.offset,
    },
  );
  return { rows, total };
}
