import type { DatabaseOptions } from "@sca/db";
import { Delivery } from "./entities/delivery.ts";
import { DigestItem, EmailDigestSubscriber } from "./entities/email-digest.ts";
import { Notification } from "./entities/notification.ts";
import { NotificationPreference } from "./entities/notification-preference.ts";
import { NotificationRule } from "./entities/notification-rule.ts";
import { QueueBacklogBreach } from "./entities/queue-backlog-breach.ts";
import { TeamChatWebhook } from "./entities/team-chat-webhook.ts";

/** The tables of the notifier schema. */
export const entities: DatabaseOptions["entities"] = [
  Notification,
  NotificationPreference,
  NotificationRule,
  Delivery,
  QueueBacklogBreach,
  EmailDigestSubscriber,
  DigestItem,
  TeamChatWebhook,
];
