// NotificationService: every method, registered one by one (router.rpc).
import type { ConnectRouter } from "@connectrpc/connect";
import { NotificationService } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import type { NotificationDeps } from "./notification-deps.ts";
import { notificationListHandlers } from "./notification-list.ts";
import { notificationPreferenceHandlers } from "./notification-preferences.ts";
import { notificationReadHandlers } from "./notification-read.ts";

export function registerNotificationService(router: ConnectRouter, deps: NotificationDeps): void {
  const lists = notificationListHandlers(deps);
  const reads = notificationReadHandlers(deps);
  const prefs = notificationPreferenceHandlers(deps);
  router.rpc(NotificationService.method.listNotifications, lists.listNotifications);
  router.rpc(NotificationService.method.countUnread, lists.countUnread);
  router.rpc(NotificationService.method.markRead, reads.markRead);
  router.rpc(NotificationService.method.markAllRead, reads.markAllRead);
  router.rpc(NotificationService.method.getPreferences, prefs.getPreferences);
  router.rpc(NotificationService.method.updatePreferences, prefs.updatePreferences);
}
