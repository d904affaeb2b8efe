import { describe, expect, it } from "@jest/globals";
import { ProcessedEvent } from "@sca/kafka";
import { schemaDrift } from "@sca/testkit";
import { entities } from "../src/store/entities.ts";
import { migrations } from "../src/store/migrations/index.ts";

describe("admin schema", () => {
  it("is what the entities describe once the migrations have run", async () => {
    // The processed-events entity joins at run time (the audit consumer), so it is checked here too.
    expect(await schemaDrift([...entities, ProcessedEvent], migrations)).toBe("");
  });
});
