import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import { requirePerson, type Person } from "@sca/rpc";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { NotificationService } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";

export interface NotificationDeps {
  orm: MikroORM;
}

/** Notifications are a person's: an API key is refused (403), nobody is 401. */
export function notificationOwner(ctx: HandlerContext): Person {
  return requirePerson(ctx, () => ProblemError.forbidden("Notifications belong to people, not to API keys."));
}

export type NotificationHandlers<K extends keyof ServiceImpl<typeof NotificationService>> = Pick<
  ServiceImpl<typeof NotificationService>,
  K
>;
