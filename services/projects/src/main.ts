// Runs the projects service (`node src/main.ts`, or `node src/main.ts migrate`).
import { runService } from "@sca/runtime";
import { service } from "./service.ts";

await runService(service);
