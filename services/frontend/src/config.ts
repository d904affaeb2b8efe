// The keys the frontend's server reads (service.ts).
import { key, keys, parse as p } from "@sca/config";

export const frontendKeys = {
  LOG_LEVEL: keys.LOG_LEVEL,
  HTTP_PORT: key(p.int(8080, { min: 1, max: 65535 })),
  /**
   * Where /api and /ws are proxied to (the gateway), as ./dev up serves the UI beside the API; empty in a deployment
   * whose ingress routes /api to the gateway itself.
   */
  GATEWAY_URL: key(p.text("")),
  /** The built single-page app (vite build's output). */
  FRONTEND_DIST_DIR: key(p.text(new URL("../dist/", import.meta.url).pathname)),
};
