import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { NotificationSchema, type Notification } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import type { NotificationRow } from "../store/entities/notification.ts";

export function notificationView(n: NotificationRow): Notification {
  return create(NotificationSchema, {
    id: n.id,
    kind: n.kind,
    title: n.title,
    body: n.body,
    createdAt: timestampFromDate(n.createdAt),
    ...(n.severity ? { severity: n.severity } : {}),
    ...(n.link ? { link: n.link } : {}),
    ...(n.teamId ? { teamId: n.teamId } : {}),
    ...(n.projectId ? { projectId: n.projectId } : {}),
    ...(n.scanId ? { scanId: n.scanId } : {}),
    ...(n.readAt ? { readAt: timestampFromDate(n.readAt) } : {}),
  });
}
