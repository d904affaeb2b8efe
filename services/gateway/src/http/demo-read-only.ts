// DEMO_READ_ONLY: every mutation outside the authentication routes is refused before it reaches a handler, so
// visitors can still sign in (and out) of the demo. With DEMO_ALLOW_SANDBOX_SCANS and DEMO_SANDBOX_PROJECT_ID, one
// path more passes: starting a scan of the sandbox project, which its route bounds (routes/scans/scans.ts).
import type { RequestHandler } from "express";
import { ProblemError } from "@sca/problem";
import { isAuthPath } from "./auth-paths.ts";

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export const demoReadOnlyProblem = (detail = "This is a read-only demo: changes are disabled.") =>
  new ProblemError({ status: 403, code: "demo_read_only", detail });

/** The path a sandbox scan is started on, or null when the demo has no sandbox. */
export function sandboxScanPath(config: {
  DEMO_READ_ONLY: boolean;
  DEMO_ALLOW_SANDBOX_SCANS: boolean;
  DEMO_SANDBOX_PROJECT_ID: string;
}): string | null {
  const id = config.DEMO_SANDBOX_PROJECT_ID.trim().toLowerCase();
  return config.DEMO_READ_ONLY && config.DEMO_ALLOW_SANDBOX_SCANS && id ? `/v1/projects/${id}/scans` : null;
}

export function demoReadOnly(sandboxPath: string | null): RequestHandler {
  return (req, _res, next) => {
    if (!MUTATIONS.has(req.method) || isAuthPath(req.path)) return next();
    if (sandboxPath && req.method === "POST" && req.path.toLowerCase() === sandboxPath) return next();
    next(demoReadOnlyProblem());
  };
}
