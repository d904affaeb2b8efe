import { describe, expect, it } from "@jest/globals";
import { OutboxMessage, ProcessedEvent } from "@sca/kafka";
import { schemaDrift } from "@sca/testkit";
import { entities } from "../src/store/entities.ts";
import { migrations } from "../src/store/migrations/index.ts";

describe("policy schema", () => {
  it("is what the entities describe once the migrations have run", async () => {
    // The outbox and processed-events entities join at run time (kafka), so they are checked here too.
    expect(await schemaDrift([...entities, OutboxMessage, ProcessedEvent], migrations)).toBe("");
  });
});
