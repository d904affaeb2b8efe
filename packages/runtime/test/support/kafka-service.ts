// A domain service that declares Kafka use, over the schema the test names in TEST_SCHEMA: what
// run-service.test.ts runs `migrate` of.
import { CreateOutboxTable, CreateProcessedEventsTable, TOPICS } from "@sca/kafka";
import { runService } from "../../src/index.ts";

await runService({
  name: "notifier",
  schema: process.env.TEST_SCHEMA,
  entities: [],
  migrations: [CreateOutboxTable, CreateProcessedEventsTable],
  kafka: { outbox: true, produces: [TOPICS.auditEvents], consumes: [TOPICS.domainEvents] },
  start: () => () => undefined,
});
