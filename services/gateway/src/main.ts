// Runs the gateway (`node src/main.ts`): its definition (service.ts) from the environment, drained on SIGTERM/SIGINT.
// A bad configuration value stops it with one line naming the key.
import { exitOnConfigError } from "@sca/config";
import { onShutdown } from "@sca/rpc";
import { startGateway } from "./service.ts";

const gateway = await startGateway().catch(exitOnConfigError);
onShutdown(gateway.logger, [{ name: "gateway", close: () => gateway.close() }]);
