// How error answers appear in the OpenAPI document. Rendering them is src/http/problem-response.ts.
import { PROBLEM_CODES } from "@sca/problem";
import { z } from "zod";
import type { ResponseSpec } from "./route.ts";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export const problemSchema = z
  .looseObject({
    type: z.string().meta({ description: "`{base_url}/problems/<code>`, or a URI the spec fixes (a urn)" }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().meta({ description: "The request path (without /api and without the query)" }),
    code: z.enum(PROBLEM_CODES).meta({
      description:
        "Machine-readable code, one of a closed set: the last segment of type (urn:service:problem:last-oauth-link has " +
        "last_oauth_link)",
    }),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: "Validation errors: one per offending field, e.g. body.email or query.limit" }),
  })
  .meta({
    id: "Problem",
    description: "RFC 9457 problem document; domain extensions are added as snake_case members.",
  });

/** An error answer a route documents; its handler throws a ProblemError rather than returning it. */
export function problemResponse(description: string): ResponseSpec & { problem: true } {
  return { description, schema: problemSchema, contentType: PROBLEM_CONTENT_TYPE, problem: true };
}
