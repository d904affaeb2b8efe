// One log line per answered request: method, canonical path, route template, status and duration. The query
// string is never logged (OAuth codes and states travel there).
import type { RequestHandler } from "express";
import { currentRequestId, type Logger } from "@sca/log";
import { routeTemplateOf } from "../api/route-template.ts";

export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    // `finish` fires from socket callbacks, outside the request's context: its id is taken now and written on the
    // line (binding the callback to the context instead cost an AsyncResource and a deprecation wrapper a request).
    const requestId = currentRequestId();
    res.once("finish", () => {
      logger.info(
        {
          ...(requestId ? { request_id: requestId } : {}),
          method: req.method,
          path: req.path,
          route: routeTemplateOf(req) ?? null,
          status: res.statusCode,
          duration_ms: Math.round(performance.now() - started),
        },
        "request",
      );
    });
    next();
  };
}
