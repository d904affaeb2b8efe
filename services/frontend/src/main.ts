// Runs the frontend's server (`node src/main.ts`): its definition (service.ts) from the environment, closed on
// SIGTERM/SIGINT. A bad configuration value stops it with one line naming the key.
import { exitOnConfigError } from "@sca/config";
import { onShutdown } from "@sca/rpc";
import { startFrontend } from "./service.ts";

const frontend = await startFrontend().catch(exitOnConfigError);
onShutdown(frontend.logger, [{ name: "frontend", close: () => frontend.close() }]);
