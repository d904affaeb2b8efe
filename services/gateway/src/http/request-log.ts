// One log line per answered request: method, canonical path, route template, status and duration. The query
// string is never logged (OAuth codes and states travel there).
import { AsyncResource } from "node:async_hooks";
import type { RequestHandler } from "express";
import type { Logger } from "@sca/log";
import { routeTemplateOf } from "../api/route-template.ts";

export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    // `finish` fires from socket callbacks; bound, the line keeps the request id.
    res.once(
      "finish",
      AsyncResource.bind(() => {
        logger.info(
          {
            method: req.method,
            path: req.path,
            route: routeTemplateOf(req) ?? null,
            status: res.statusCode,
            duration_ms: Math.round(performance.now() - started),
          },
          "request",
        );
      }),
    );
    next();
  };
}
