// CORS for the origins in CORS_ALLOWED_ORIGINS (exact match), with credentials: the refresh token is a cookie.
// A request from another origin proceeds without CORS headers (the browser withholds the answer); a preflight
// from another origin is refused outright.
import type { RequestHandler } from "express";
import { ProblemError } from "@sca/problem";

const ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE";
const EXPOSED_HEADERS = "X-Request-ID, Retry-After";
const PREFLIGHT_MAX_AGE_SECONDS = "600";

export function cors(allowedOrigins: readonly string[]): RequestHandler {
  const allowed = new Set(allowedOrigins);
  return (req, res, next) => {
    res.vary("Origin");
    const origin = req.get("origin");
    const preflight = req.method === "OPTIONS" && req.get("access-control-request-method") !== undefined;
    if (origin === undefined) return next();
    if (!allowed.has(origin)) {
      if (preflight)
        return next(
          new ProblemError({
            status: 403,
            code: "cors_origin_not_allowed",
            detail: "Cross-origin requests from this origin are not allowed.",
          }),
        );
      return next();
    }
    res.setHeader("Access-Control-Allow-Origin", origin);
    res.setHeader("Access-Control-Allow-Credentials", "true");
    if (!preflight) {
      res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
      return next();
    }
    res.setHeader("Access-Control-Allow-Methods", ALLOWED_METHODS);
    const requestedHeaders = req.get("access-control-request-headers");
    if (requestedHeaders) res.setHeader("Access-Control-Allow-Headers", requestedHeaders);
    res.vary("Access-Control-Request-Headers");
    res.setHeader("Access-Control-Max-Age", PREFLIGHT_MAX_AGE_SECONDS);
    res.status(204).end();
  };
}
