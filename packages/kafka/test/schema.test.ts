import { describe, expect, it } from "@jest/globals";
import { CreateOutboxTable, CreateProcessedEventsTable, OutboxMessage, ProcessedEvent } from "@sca/kafka";
import { schemaDrift } from "@sca/testkit";

describe("the outbox and processed-events tables", () => {
  it("are what their entities describe once their migrations have run", async () => {
    expect(await schemaDrift([OutboxMessage, ProcessedEvent], [CreateOutboxTable, CreateProcessedEventsTable])).toBe(
      "",
    );
  });
});
