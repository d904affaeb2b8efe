import { describe, expect, it } from "@jest/globals";
import { OutboxMessage, ProcessedEvent } from "@sca/kafka";
import { schemaDrift } from "@sca/testkit";
import { entities } from "../src/store/entities.ts";
import { migrations } from "../src/store/migrations/index.ts";

describe("notifier schema", () => {
  it("is what the entities describe once the migrations have run", async () => {
    // processed_events and the outbox join at run time (kafka.consumes, kafka.outbox): checked here too.
    expect(await schemaDrift([...entities, ProcessedEvent, OutboxMessage], migrations)).toBe("");
  });
});
