import type { DatabaseOptions } from "@sca/db";
import { CreateOutboxTable, CreateProcessedEventsTable } from "@sca/kafka";
import { Migration20261124200000_Notifications } from "./Migration20261124200000_Notifications.ts";
import { Migration20261124210000_RulesAndWebhooks } from "./Migration20261124210000_RulesAndWebhooks.ts";
import { Migration20261124210100_QueueBacklog } from "./Migration20261124210100_QueueBacklog.ts";
import { Migration20261125170000_EmailDigests } from "./Migration20261125170000_EmailDigests.ts";
import { Migration20261125180000_TeamChatWebhooks } from "./Migration20261125180000_TeamChatWebhooks.ts";

/** Every migration of the notifier schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [
  // The events each consumer group applied (reset requests, scan state changes).
  CreateProcessedEventsTable,
  Migration20261124200000_Notifications,
  Migration20261124210000_RulesAndWebhooks,
  Migration20261124210100_QueueBacklog,
  Migration20261125170000_EmailDigests,
  Migration20261125180000_TeamChatWebhooks,
  // The transactional outbox of the notifier's audit events (team chat webhook changes).
  CreateOutboxTable,
];
