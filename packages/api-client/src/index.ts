// The portal's typed API client: the paths and schemas generated from the gateway's OpenAPI document (gen/, by
// generate.sh) and openapi-fetch over them, so a changed route breaks a caller's typecheck. The web UI and a later
// CLI share it.
import createClient, { type Client, type ClientOptions, type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "../gen/openapi.ts";

export type { components, operations, paths, Middleware };
export type ApiClient = Client<paths>;
export type Schemas = components["schemas"];
export type Problem = Schemas["Problem"];

/** A client of the API at `baseUrl` (the origin plus `/api`, as the document's `servers` say). */
export function createApiClient(options: ClientOptions & { baseUrl: string }): ApiClient {
  return createClient<paths>(options);
}

/** Whether an error body is a problem document (RFC 9457) as the API sends them. */
export function isProblem(body: unknown): body is Problem {
  return (
    typeof body === "object" &&
    body !== null &&
    typeof (body as { title?: unknown }).title === "string" &&
    typeof (body as { status?: unknown }).status === "number"
  );
}
