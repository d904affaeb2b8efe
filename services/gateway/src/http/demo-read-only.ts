// DEMO_READ_ONLY: every mutation outside the authentication routes is refused before it reaches a handler, so
// visitors can still sign in (and out) of the demo.
import type { RequestHandler } from "express";
import { ProblemError } from "@sca/problem";
import { isAuthPath } from "./auth-paths.ts";

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function demoReadOnly(): RequestHandler {
  return (req, _res, next) => {
    if (!MUTATIONS.has(req.method) || isAuthPath(req.path)) return next();
    next(
      new ProblemError({
        status: 403,
        code: "demo_read_only",
        detail: "This is a read-only demo: changes are disabled.",
      }),
    );
  };
}
