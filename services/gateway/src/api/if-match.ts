// If-Match on a row's integer version (the spec's optimistic concurrency): the header as a client sends it, and the
// ETag a read answers with.
import type { Request } from "express";
import { z } from "zod";
import { ProblemError } from "@sca/problem";

/** The version an If-Match header names ("3", "\"3\"" or W/"3"); null when absent or not a version. */
export function ifMatchVersion(req: Request): number | null {
  const raw = req.headers["if-match"];
  if (typeof raw !== "string") return null;
  const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(raw);
  return m ? Number(m[1]) : null;
}

/** The version If-Match names, or a 428 naming what carries it. */
export function requiredIfMatch(req: Request, what: string): number {
  const version = ifMatchVersion(req);
  if (version === null)
    throw new ProblemError({
      status: 428,
      code: "if_match_required",
      detail: `If-Match must carry the ${what}'s current version.`,
    });
  return version;
}

/** The ETag header of a versioned row. */
export const versionEtag = (version: number) => ({ ETag: `"${version}"` });

export const versionEtagHeader = (what: string) =>
  z.object({ ETag: z.string().meta({ description: `The ${what}'s version, quoted ("3")` }) });

/** Whether the request carries an If-Match header at all (a present one naming no version is refused). */
export function hasIfMatch(req: Request): boolean {
  return req.headers["if-match"] !== undefined;
}
