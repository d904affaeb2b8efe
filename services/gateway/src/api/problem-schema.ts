// How error answers appear in the OpenAPI document. Rendering them is src/http/problem-response.ts.
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
    code: z.string().meta({ description: "Machine-readable code, the last segment of type" }),
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
