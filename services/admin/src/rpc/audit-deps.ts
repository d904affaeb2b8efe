// What the AuditService's use cases need, and the shape of a group of its handlers.
import type { ServiceImpl } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { AuditService } from "@sca/proto/sca/admin/v1/audit_pb.ts";

export interface AuditServiceDeps {
  orm: MikroORM;
}

/** Some of the AuditService's methods, typed as the service declares them. */
export type AuditHandlers<K extends keyof ServiceImpl<typeof AuditService>> = Pick<ServiceImpl<typeof AuditService>, K>;
