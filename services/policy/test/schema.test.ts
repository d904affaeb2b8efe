import { describe, expect, it } from "@jest/globals";
import { OutboxMessage } from "@sca/kafka";
import { schemaDrift } from "@sca/testkit";
import { entities } from "../src/store/entities.ts";
import { migrations } from "../src/store/migrations/index.ts";

describe("policy schema", () => {
  it("is what the entities describe once the migrations have run", async () => {
    // The outbox entity joins at run time (kafka), so it is checked here too.
    expect(await schemaDrift([...entities, OutboxMessage], migrations)).toBe("");
  });
});
