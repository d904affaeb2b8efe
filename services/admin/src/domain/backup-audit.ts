// The audit entries of backups: taken, deleted, restored. They are appended to the log directly (not through the
// outbox like admin's other events), so a backup holds the entry of its own taking and a restore's entry comes right
// after the entries the restore rewound the log to.
import type { Actor } from "@sca/audit";
import type { EntryFields } from "./audit-entry.ts";

export function backupAuditEntry(opts: {
  id: string;
  action: "backup.created" | "backup.deleted" | "backup.restored";
  actor: Actor;
  requestId: string;
  backupName: string;
  details: Record<string, string>;
  at: Date;
}): EntryFields {
  return {
    id: opts.id,
    occurredAt: opts.at,
    source: "admin",
    action: opts.action,
    outcome: "success",
    actorUserId: opts.actor.userId,
    actorApiKeyId: opts.actor.apiKeyId ?? "",
    actorEmail: opts.actor.email,
    clientIp: opts.actor.ip,
    userAgent: opts.actor.userAgent,
    targetTable: "backups",
    targetId: opts.backupName,
    teamId: "",
    organizationId: "",
    requestId: opts.requestId,
    details: opts.details,
  };
}
