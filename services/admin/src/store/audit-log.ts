// The audit log: the one module that reads or writes `audit_entries` (docs/adr/0005). Appending takes the chain
// lock, so concurrent consumers (partitions, replicas) extend one chain in insertion order; nothing here updates or
// deletes a row (the database refuses it anyway).
import type { EntityManager, FilterQuery, QBFilterQuery } from "@mikro-orm/postgresql";
import { containsPattern, rawQuery, SNAPSHOT } from "@sca/db";
import { chainNext, type ChainedEntry } from "../domain/audit-chain.ts";
import type { AuditQuery, EntryFields } from "../domain/audit-entry.ts";
import { AuditEntry, type AuditEntryRow } from "./entities/audit-entry.ts";

export type { AuditEntryRow } from "./entities/audit-entry.ts";

/** The transaction-scoped advisory lock that serialises appends to the deployment's one chain. */
const CHAIN_LOCK = 7_107_000_001;

/**
 * Appends the entry after the chain's head, in the caller's transaction (which must commit or roll back soon: the
 * chain lock is held until then). Answers null when the log already holds the event (a redelivery): one row each.
 */
export async function appendEntry(
  em: EntityManager,
  fields: EntryFields,
  clock: () => Date = () => new Date(),
): Promise<ChainedEntry | null> {
  await rawQuery(em, "select pg_advisory_xact_lock(?)", [CHAIN_LOCK]);
  if (await em.findOne(AuditEntry, { id: fields.id }, { ...SNAPSHOT, fields: ["seq"] })) return null;
  const [head] = await em.find(
    AuditEntry,
    {},
    { ...SNAPSHOT, fields: ["seq", "hash"], orderBy: { seq: "desc" }, limit: 1 },
  );
  // Taken under the lock: recorded_at follows the chain's order on one clock.
  const entry = chainNext(head ? { seq: head.seq, hash: head.hash } : null, {
    ...fields,
    recordedAt: trimToMs(clock()),
  });
  await em.insert(AuditEntry, entry);
  return entry;
}

const trimToMs = (d: Date) => new Date(d.getTime());

const prefixPattern = (text: string) => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function selection(query: AuditQuery): FilterQuery<AuditEntryRow> {
  const and: FilterQuery<AuditEntryRow>[] = [];
  if (query.teamId !== undefined) and.push({ teamId: query.teamId });
  if (query.actorUserId !== undefined) and.push({ actorUserId: query.actorUserId });
  if (query.targetTable !== undefined) and.push({ targetTable: query.targetTable });
  if (query.action !== undefined) and.push({ action: query.action });
  if (query.actionPrefix !== undefined) and.push({ action: { $like: prefixPattern(query.actionPrefix) } });
  if (query.from !== undefined) and.push({ occurredAt: { $gte: query.from } });
  if (query.to !== undefined) and.push({ occurredAt: { $lt: query.to } });
  if (query.q !== undefined) {
    const like = { $ilike: containsPattern(query.q) };
    and.push({
      $or: [
        { actorEmail: like },
        { action: like },
        { targetTable: like },
        { targetId: like },
        { clientIp: like },
        { requestId: like },
        { source: like },
      ],
    });
  }
  return and.length ? { $and: and } : {};
}

/** A page of the matching entries, newest first, and how many match in all. */
export async function listEntries(
  em: EntityManager,
  query: AuditQuery,
  limit: number,
  offset: number,
): Promise<{ rows: AuditEntryRow[]; total: number }> {
  const [rows, total] = await em.findAndCount(AuditEntry, selection(query), {
    ...SNAPSHOT,
    orderBy: { seq: "desc" },
    limit,
    offset,
  });
  return { rows, total };
}

/**
 * The matching entries newest first, `chunk` rows per query (keyset on seq: one chunk in memory at a time), at most
 * `max` rows in all.
 */
export async function* exportEntries(
  em: EntityManager,
  query: AuditQuery,
  chunk: number,
  max: number,
): AsyncGenerator<AuditEntryRow[]> {
  const where = selection(query);
  let before: number | null = null;
  let left = max;
  while (left > 0) {
    const page: FilterQuery<AuditEntryRow> = before === null ? where : { $and: [where, { seq: { $lt: before } }] };
    const limit = Math.min(chunk, left);
    // Plain rows, not entities: an export reads up to 100 000, and building an entity per row cost most of its time.
    // The builder maps the columns to the properties but leaves the bigint seq as PostgreSQL's text.
    const plain = await em
      .createQueryBuilder(AuditEntry)
      .select("*")
      // selection() builds objects only, never the bare primary key FilterQuery also allows.
      .where(page as QBFilterQuery<AuditEntryRow>)
      .orderBy({ seq: "desc" })
      .limit(limit)
      .execute<(Omit<AuditEntryRow, "seq"> & { seq: string | number })[]>("all", true);
    const rows: AuditEntryRow[] = plain.map((r) => ({ ...r, seq: Number(r.seq) }));
    if (rows.length === 0) return;
    yield rows;
    left -= rows.length;
    if (rows.length < limit) return;
    before = rows[rows.length - 1]!.seq;
  }
}

/** Up to `limit` entries after position `seq`, in chain order. */
export async function entriesAfter(em: EntityManager, seq: number, limit: number): Promise<AuditEntryRow[]> {
  return em.find(AuditEntry, { seq: { $gt: seq } }, { ...SNAPSHOT, orderBy: { seq: "asc" }, limit });
}

/** How many entries happened before `before` (the readiness count of AUDIT_LOG_RETENTION_DAYS; nothing is deleted). */
export async function countEntriesBefore(em: EntityManager, before: Date): Promise<number> {
  return em.count(AuditEntry, { occurredAt: { $lt: before } });
}
