// The JSON body parser of routes that take a body. Its errors (malformed JSON, too large) become problems in
// the error handler.
import { AsyncResource } from "node:async_hooks";
import express, { type RequestHandler } from "express";
import { ProblemError } from "@sca/problem";

const JSON_TYPES = ["application/json", "application/*+json"];

export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: JSON_TYPES, strict: true });
  return (req, res, next) => {
    // A body declared as another type; no body, or no type at all, is left for the schema to judge.
    if (req.get("content-type") !== undefined && req.is(JSON_TYPES) === false) {
      next(
        new ProblemError({
          status: 415,
          code: "unsupported_media_type",
          detail: "The request body must be application/json.",
        }),
      );
      return;
    }
    // The parser resumes from socket events, outside the request's async context; binding `next` keeps the
    // request id on every later log line.
    parse(req, res, AsyncResource.bind(next));
  };
}
