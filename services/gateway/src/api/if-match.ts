// If-Match as the spec's version counters use it: the header carries a row's integer version ("3", "\"3\"" or
// W/"3"). Routes where it is required answer 428 without it; routes where it is optional skip the check.
import type { Request } from "express";

/** The version an If-Match header names; null when absent or not a version. */
export function ifMatchVersion(req: Request): number | null {
  const raw = req.headers["if-match"];
  if (typeof raw !== "string") return null;
  const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(raw);
  return m ? Number(m[1]) : null;
}

/** Whether the request carries an If-Match header at all (a present one naming no version is refused). */
export function hasIfMatch(req: Request): boolean {
  return req.headers["if-match"] !== undefined;
}
