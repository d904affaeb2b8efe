// The OpenAPI 3.1 document, built once at start-up from the registered routes: the schemas that validate
// requests are the schemas the document shows.
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
} from "zod-openapi";
import { PUBLIC_PREFIX } from "../http/canonical-path.ts";
import { isRateLimit } from "../http/rate-limit.ts";
import { problemResponse } from "../api/problem-schema.ts";
import type { ResponseSpec, Route } from "../api/route.ts";

// The one credential scheme (spec: "There is no separate ApiKey scheme"); routes with `auth` require it.
const BEARER_SCHEME = "bearer";

/** The schema version of the wire format (spec: "Schema version string"). */
export const API_VERSION = "2.2.0";

function responseObject(spec: ResponseSpec): ZodOpenApiResponseObject {
  return {
    description: spec.description,
    ...(spec.schema ? { content: { [spec.contentType ?? "application/json"]: { schema: spec.schema } } } : {}),
    ...(spec.content
      ? { content: Object.fromEntries(Object.entries(spec.content).map(([type, schema]) => [type, { schema }])) }
      : {}),
    ...(spec.headers ? { headers: spec.headers } : {}),
  };
}

function operation(route: Route): ZodOpenApiOperationObject {
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, spec] of Object.entries(route.responses)) responses[status] = responseObject(spec);
  const { params, query, body, streamedBody } = route.request ?? {};
  if ((params || query || body || streamedBody) && !responses["422"]) {
    responses["422"] = responseObject(
      problemResponse("The request does not match its schema; `errors` lists each field."),
    );
  }
  // What the edge answers before a handler runs, declared wherever it can happen.
  const declare = (status: number, description: string) =>
    (responses[String(status)] ??= responseObject(problemResponse(description)));
  if (body) declare(400, "The body is not valid JSON (malformed_json)");
  if (body || streamedBody) {
    declare(413, `The body exceeds its size limit (body_too_large)`);
    declare(415, "The body is not of an accepted media type (unsupported_media_type)");
  }
  if (route.middleware?.some(isRateLimit))
    declare(429, "Too many requests (rate_limited); Retry-After says when to retry");
  declare(431, "The request line and headers exceed the server's limit (request_header_fields_too_large)");
  if (route.auth && !responses["401"]) {
    responses["401"] = responseObject(
      problemResponse("No valid bearer credential; the answer carries WWW-Authenticate: Bearer."),
    );
  }
  responses.default = responseObject(problemResponse("Any other error, as a problem document."));
  return {
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    ...(route.operationId ? { operationId: route.operationId } : {}),
    ...(route.auth ? { security: [{ [BEARER_SCHEME]: [] }] } : {}),
    ...(params || query ? { requestParams: { ...(params ? { path: params } : {}), ...(query ? { query } : {}) } } : {}),
    ...(body ? { requestBody: { required: true, content: { "application/json": { schema: body } } } } : {}),
    ...(streamedBody
      ? {
          requestBody: {
            required: true,
            description: streamedBody.description,
            content: Object.fromEntries(
              Object.entries(streamedBody.content).map(([type, schema]) => [type, { schema }]),
            ),
          },
        }
      : {}),
    responses,
  };
}

export function buildOpenApiDocument(routes: readonly Route[]): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) paths[route.path] = { ...paths[route.path], [route.method]: operation(route) };
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Software Composition Analysis Portal API",
      version: API_VERSION,
      description: "Errors are application/problem+json documents (RFC 9457) with English titles and details.",
    },
    servers: [{ url: PUBLIC_PREFIX }],
    paths,
    components: {
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description: "An access token from login, or an API key tos_<prefix>_<secret>.",
        },
      },
    },
  });
}
