// Wiring of the admin service.
import { runService } from "@sca/runtime";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

await runService({
  name: "admin",
  entities,
  migrations,
  // No capability yet: the service answers health and owns its (empty) schema.
  start: () => () => undefined,
});
