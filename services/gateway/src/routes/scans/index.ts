// Scans' routes, in the order the OpenAPI document lists them.
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { imageArchiveRoutes } from "./image-archives.ts";
import { releaseRoutes } from "./releases.ts";
import { scanRoutes } from "./scans.ts";
import { uploadRoutes } from "./uploads.ts";

export function scansRoutes(ctx: GatewayContext): Route[] {
  return [...uploadRoutes(ctx), ...imageArchiveRoutes(ctx), ...scanRoutes(ctx), ...releaseRoutes(ctx)];
}
