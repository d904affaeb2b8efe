// The projects service: what it is, for main.ts to run and tests to start.
import { defineService } from "@sca/runtime";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

export const service = defineService({
  name: "projects",
  entities,
  migrations,
  // No capability yet: the service answers health and owns its (empty) schema.
  start: () => () => undefined,
});
