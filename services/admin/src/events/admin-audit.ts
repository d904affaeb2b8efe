// The admin service's own audit events (its changes to what it keeps), through its outbox like every service's;
// its audit consumer then records them as it records the others'.
import { auditEmitter } from "@sca/audit";

export const emitAdminAudit = auditEmitter({ source: "admin" });
