// Request parsing against a route's schemas. Every offending field of params, query and body is reported in one
// 422 problem, each with its path (`query.limit`, `body.members.0.email`) and zod's English message.
import type { Request } from "express";
import { z } from "zod";
import { ProblemError, unstorableTextViolations, type FieldViolation } from "@sca/problem";
import type { Route } from "./route.ts";

type Location = "params" | "query" | "body";

async function parsePart(
  location: Location,
  schema: z.core.$ZodType | undefined,
  value: unknown,
  violations: FieldViolation[],
): Promise<unknown> {
  if (!schema) return value;
  // Text no service could store (NUL, unpaired surrogates) is refused here for every route, present and future.
  const unstorable = unstorableTextViolations(value, location);
  if (unstorable.length) {
    violations.push(...unstorable);
    return undefined;
  }
  const result = await z.safeParseAsync(schema, value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    violations.push({ path: [location, ...issue.path.map(String)].join("."), message: issue.message });
  }
  return undefined;
}

export async function parseRequest(
  route: Route,
  req: Request,
): Promise<{ params: unknown; query: unknown; body: unknown }> {
  const violations: FieldViolation[] = [];
  const schemas = route.request ?? {};
  const params = await parsePart("params", schemas.params, req.params, violations);
  const query = await parsePart("query", schemas.query, req.query, violations);
  const body = await parsePart("body", schemas.body, req.body, violations);
  if (violations.length) throw ProblemError.validation(violations);
  return { params, query, body };
}
