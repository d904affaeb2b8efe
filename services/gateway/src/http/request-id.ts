// X-Request-ID: the caller's id is echoed, otherwise a UUIDv7 is made; the rest of the request runs inside
// withRequestId so every log line and every service call of the request carries it.
import { randomUUIDv7 } from "node:crypto";
import type { RequestHandler } from "express";
import { withRequestId } from "@sca/log";

// Visible ASCII only and bounded, so a caller's id can neither break a log line nor bloat it.
const ACCEPTED_ID = /^[\x21-\x7e]{1,128}$/;

export function requestIdFrom(header: string | undefined): string {
  return header !== undefined && ACCEPTED_ID.test(header) ? header : randomUUIDv7();
}

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const id = requestIdFrom(req.get("x-request-id"));
    res.setHeader("X-Request-ID", id);
    withRequestId(id, next);
  };
}
