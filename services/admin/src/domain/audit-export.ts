// Shipping the log to AUDIT_EXPORT_URL (docs/audit.md): which entries a run may send, and the batch it posts.
import type { ChainedEntry } from "./audit-chain.ts";

/**
 * The entries (in chain order, starting right after the shipped position) that may go now: those recorded at or
 * before `cutoff`, up to the first one that was not (a later one is never sent before it, so nothing is skipped).
 */
export function exportablePrefix<E extends Pick<ChainedEntry, "recordedAt">>(entries: readonly E[], cutoff: Date): E[] {
  const young = entries.findIndex((e) => e.recordedAt.getTime() > cutoff.getTime());
  return young === -1 ? [...entries] : entries.slice(0, young);
}

/** An entry as JSON (the API's item, the CSV's row and the batch's entry share these names). */
export function entryJson(e: ChainedEntry) {
  return {
    id: e.id,
    seq: e.seq,
    occurred_at: e.occurredAt.toISOString(),
    recorded_at: e.recordedAt.toISOString(),
    source: e.source,
    action: e.action,
    outcome: e.outcome,
    actor_user_id: e.actorUserId,
    actor_api_key_id: e.actorApiKeyId,
    actor_email: e.actorEmail,
    client_ip: e.clientIp,
    user_agent: e.userAgent,
    target_table: e.targetTable,
    target_id: e.targetId,
    team_id: e.teamId,
    organization_id: e.organizationId,
    request_id: e.requestId,
    details: e.details,
    prev_hash: e.prevHash,
    hash: e.hash,
  };
}

/**
 * The JSON a batch is posted as. `batch_id` names its first and last position: a collector that sees a position
 * again (its answer to an earlier post was lost) keeps one copy, by `seq`.
 */
export function exportBatch(entries: readonly ChainedEntry[], sentAt: Date) {
  const first = entries[0]!;
  const last = entries[entries.length - 1]!;
  return {
    format: "sca-audit-batch-v1",
    batch_id: `${first.seq}-${last.seq}`,
    first_seq: first.seq,
    last_seq: last.seq,
    prev_hash: first.prevHash,
    last_hash: last.hash,
    count: entries.length,
    sent_at: sentAt.toISOString(),
    entries: entries.map(entryJson),
  };
}
