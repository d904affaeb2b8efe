// malicious_waivers (see the entity): the one module naming its columns.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { MaliciousWaiver } from "./entities/malicious-waiver.ts";

export interface WaiverRow {
  id: string;
  projectId: string;
  purl: string;
  reason: string;
  createdByUserId: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

const FIELDS = [
  "id",
  "projectId",
  "purl",
  "reason",
  "createdByUserId",
  "createdAt",
  "expiresAt",
  "revokedAt",
] as const satisfies (keyof WaiverRow)[];

export async function insertWaiver(em: EntityManager, w: Omit<WaiverRow, "id" | "revokedAt">): Promise<WaiverRow> {
  const row: WaiverRow = { ...w, id: randomUUID(), revokedAt: null };
  await em.createQueryBuilder(MaliciousWaiver).insert(row).execute("run");
  return row;
}

/** The project's waivers, newest first; only those active at `now` unless `inactiveToo`. */
export async function projectWaivers(
  em: EntityManager,
  projectId: string,
  now: Date,
  inactiveToo: boolean,
): Promise<WaiverRow[]> {
  const where = inactiveToo ? { projectId } : { projectId, revokedAt: null, expiresAt: { $gt: now } };
  const rows = await em.find(MaliciousWaiver, where, {
    ...SNAPSHOT,
    fields: [...FIELDS],
    orderBy: { createdAt: "desc", id: "desc" },
  });
  return rows.map((r) => ({ ...r }));
}

/** The purls the project's active waivers name, sorted (a key of the gate's kept facts). */
export async function waivedPurls(em: EntityManager, projectId: string, now: Date): Promise<string[]> {
  const active = await projectWaivers(em, projectId, now, false);
  return [...new Set(active.map((w) => w.purl))].sort();
}

/** Ends an active waiver at `now`; the row as it now is, or null when the project holds no such waiver. */
export async function revokeWaiver(
  em: EntityManager,
  projectId: string,
  id: string,
  now: Date,
): Promise<WaiverRow | null> {
  await em
    .createQueryBuilder(MaliciousWaiver)
    .update({ revokedAt: now })
    .where({ id, projectId, revokedAt: null, expiresAt: { $gt: now } })
    .execute("run");
  const row = await em.findOne(MaliciousWaiver, { id, projectId }, { ...SNAPSHOT, fields: [...FIELDS] });
  return row ? { ...row } : null;
}
