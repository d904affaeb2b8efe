// Marking read: one notification (idempotent; another person's is not found) or all of the person's.
import { create } from "@bufbuild/protobuf";
import { ProblemError } from "@sca/problem";
import { MarkAllReadResponseSchema, MarkReadResponseSchema } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import { markAllRead, markRead } from "../store/notifications.ts";
import { notificationOwner, type NotificationDeps, type NotificationHandlers } from "./notification-deps.ts";
import { notificationView } from "./notification-views.ts";
import { UUID } from "@sca/ids";

export function notificationReadHandlers(deps: NotificationDeps): NotificationHandlers<"markRead" | "markAllRead"> {
  return {
    async markRead(req, ctx) {
      const person = notificationOwner(ctx);
      const notFound = () => ProblemError.notFound("No such notification.");
      if (!UUID.test(req.id)) throw notFound();
      const row = await markRead(deps.orm.em.fork(), person.user_id, req.id);
      if (!row) throw notFound();
      return create(MarkReadResponseSchema, { notification: notificationView(row) });
    },

    async markAllRead(_req, ctx) {
      const person = notificationOwner(ctx);
      return create(MarkAllReadResponseSchema, { marked: await markAllRead(deps.orm.em.fork(), person.user_id) });
    },
  };
}
