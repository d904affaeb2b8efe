import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { NotificationRuleSchema, type NotificationRule } from "@sca/proto/sca/notifier/v1/notification_rules_pb.ts";
import type { NotificationRuleRow } from "../store/entities/notification-rule.ts";

export function notificationRuleView(r: NotificationRuleRow): NotificationRule {
  return create(NotificationRuleSchema, {
    id: r.id,
    name: r.name,
    kinds: r.kinds,
    channels: r.channels,
    emailRecipients: r.emailRecipients,
    isActive: r.isActive,
    createdAt: timestampFromDate(r.createdAt),
    updatedAt: timestampFromDate(r.updatedAt),
    ...(r.organizationId ? { organizationId: r.organizationId } : {}),
    ...(r.teamId ? { teamId: r.teamId } : {}),
    ...(r.projectId ? { projectId: r.projectId } : {}),
    ...(r.minSeverity ? { minSeverity: r.minSeverity } : {}),
  });
}
