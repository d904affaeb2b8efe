// Runs the gateway (`node src/main.ts`): its definition (service.ts) from the environment, drained on SIGTERM/SIGINT.
// A bad configuration value stops it with one line naming the key.
import { exitOnConfigError } from "@sca/config";
import { onShutdown } from "@sca/rpc";
import { applyHeapGrowth, BOUNDED_HEAP_GROWTH } from "@sca/runtime";
import { startGateway } from "./service.ts";

// As the memory-bound services run (runService): V8's own sizing settled, under a steady 50 list pages a second, on a
// few MiB of room over the gateway's 54 MiB live and collected in full two or three times a second for minutes
// (docs/benchmarks.md, finding list).
applyHeapGrowth(BOUNDED_HEAP_GROWTH);
const gateway = await startGateway().catch(exitOnConfigError);
onShutdown(gateway.logger, [{ name: "gateway", close: () => gateway.close() }]);
