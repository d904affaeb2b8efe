export { callerActor, clientActor } from "./actor.ts";
export type { Actor } from "./actor.ts";
export { auditEmitter } from "./emitter.ts";
export type { AuditEmitterOptions, AuditRecord, EmitAudit } from "./emitter.ts";
