import { describe, expect, it } from "@jest/globals";
import { schemaDrift } from "@sca/testkit";
import { entities } from "../src/store/entities.ts";
import { migrations } from "../src/store/migrations/index.ts";

describe("policy schema", () => {
  it("is what the entities describe once the migrations have run", async () => {
    expect(await schemaDrift(entities, migrations)).toBe("");
  });
});
