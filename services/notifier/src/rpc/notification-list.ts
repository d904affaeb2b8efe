// The person's notifications, newest first, with their unread count; and the unread count alone.
import { create } from "@bufbuild/protobuf";
import { pageInfo, pageOf, pageSizeRule } from "@sca/paging";
import { CountUnreadResponseSchema, ListNotificationsResponseSchema } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import { countUnread, listNotifications } from "../store/notifications.ts";
import { notificationOwner, type NotificationDeps, type NotificationHandlers } from "./notification-deps.ts";
import { notificationView } from "./notification-views.ts";

/** The spec: page_size 20 by default, 200 at most. */
export const NOTIFICATION_PAGE_SIZE = pageSizeRule({ defaultSize: 20, maxSize: 200 });

export function notificationListHandlers(
  deps: NotificationDeps,
): NotificationHandlers<"listNotifications" | "countUnread"> {
  return {
    async listNotifications(req, ctx) {
      const person = notificationOwner(ctx);
      const p = pageOf(req.page, NOTIFICATION_PAGE_SIZE);
      const em = deps.orm.em.fork();
      const { rows, total } = await listNotifications(em, person.user_id, {
        unreadOnly: req.unreadOnly,
        limit: p.limit,
        offset: p.offset,
      });
      const unread = await countUnread(em, person.user_id);
      return create(ListNotificationsResponseSchema, {
        items: rows.map(notificationView),
        page: pageInfo(p, total),
        unreadCount: unread,
      });
    },

    async countUnread(_req, ctx) {
      const person = notificationOwner(ctx);
      return create(CountUnreadResponseSchema, { count: await countUnread(deps.orm.em.fork(), person.user_id) });
    },
  };
}
