// The audit log's hash chain (docs/audit.md): entry n carries the SHA-256 of entry n-1 (`prevHash`) and its own
// (`hash` = SHA-256 of the previous hash's 32 bytes followed by the UTF-8 of the entry's canonical text). One chain
// per deployment, positions 1, 2, 3, ... without gaps. Removing, changing, inserting or reordering entries breaks
// it; rewriting every hash after a change is only caught against a copy held elsewhere (the collector's).
import { createHash } from "node:crypto";

/** The hash before the first entry. */
export const GENESIS_HASH = "0".repeat(64);

/** What the chain covers of an entry: every recorded field. Absent values are empty strings. */
export interface ChainedFields {
  seq: number;
  id: string;
  occurredAt: Date;
  recordedAt: Date;
  source: string;
  action: string;
  outcome: string;
  actorUserId: string;
  actorApiKeyId: string;
  actorEmail: string;
  clientIp: string;
  userAgent: string;
  targetTable: string;
  targetId: string;
  teamId: string;
  organizationId: string;
  requestId: string;
  details: Record<string, string>;
}

export interface ChainedEntry extends ChainedFields {
  prevHash: string;
  hash: string;
}

/**
 * The entry's canonical text: the JSON array (as ECMAScript's JSON.stringify writes it: no spaces, UTF-8, only `"`,
 * `\` and control characters escaped) of the tag "sca-audit-v1" and the fields in this order, times as ISO 8601 UTC
 * with milliseconds, details as [key, value] pairs sorted by key.
 */
export function canonicalText(e: ChainedFields): string {
  const details = Object.keys(e.details)
    .sort()
    .map((k) => [k, e.details[k]!]);
  return JSON.stringify([
    "sca-audit-v1",
    e.seq,
    e.id,
    e.occurredAt.toISOString(),
    e.recordedAt.toISOString(),
    e.source,
    e.action,
    e.outcome,
    e.actorUserId,
    e.actorApiKeyId,
    e.actorEmail,
    e.clientIp,
    e.userAgent,
    e.targetTable,
    e.targetId,
    e.teamId,
    e.organizationId,
    e.requestId,
    details,
  ]);
}

/** SHA-256 (lower-case hex) of the previous hash's bytes followed by the entry's canonical text. */
export function entryHash(prevHash: string, e: ChainedFields): string {
  return createHash("sha256").update(Buffer.from(prevHash, "hex")).update(canonicalText(e), "utf8").digest("hex");
}

/** The entry at the position after `head` (null: the first), with its hashes. */
export function chainNext(
  head: { seq: number; hash: string } | null,
  fields: Omit<ChainedFields, "seq">,
): ChainedEntry {
  const seq = (head?.seq ?? 0) + 1;
  const prevHash = head?.hash ?? GENESIS_HASH;
  const entry = { ...fields, seq };
  return { ...entry, prevHash, hash: entryHash(prevHash, entry) };
}

export type ChainBreak = "seq_gap" | "prev_hash_mismatch" | "hash_mismatch";

export type ChainVerdict =
  | { ok: true; count: number; last: { seq: number; hash: string } | null }
  | { ok: false; seq: number; reason: ChainBreak };

/**
 * Checks entries in chain order. `after` is the entry before the first one given (its seq and hash, e.g. the last
 * entry of the previous batch a collector verified); without it the entries must start at position 1.
 */
export function verifyChain(
  entries: Iterable<ChainedEntry>,
  after: { seq: number; hash: string } | null = null,
): ChainVerdict {
  let last = after;
  let count = 0;
  for (const e of entries) {
    const expectedSeq = (last?.seq ?? 0) + 1;
    if (e.seq !== expectedSeq) return { ok: false, seq: e.seq, reason: "seq_gap" };
    if (e.prevHash !== (last?.hash ?? GENESIS_HASH)) return { ok: false, seq: e.seq, reason: "prev_hash_mismatch" };
    if (e.hash !== entryHash(e.prevHash, e)) return { ok: false, seq: e.seq, reason: "hash_mismatch" };
    last = { seq: e.seq, hash: e.hash };
    count++;
  }
  return { ok: true, count, last };
}
