// /v1/admin/organizations/{organization_id}/tracker-credentials (TrackerCredentialService of admin): an
// organization's ticket-tracker logins, super_admin only (everyone else 404). The api_token is write-only.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { TrackerCredential } from "@sca/proto/sca/admin/v1/tracker_credentials_pb.ts";
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const TAGS = ["admin: tracker credentials"];
const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : "");

const credentialSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    host: z.string().meta({ description: "The bare host name, lower-case" }),
    auth_scheme: z.enum(["tracker_basic"]),
    username: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "TrackerCredential", description: "A ticket-tracker login; its api_token is never answered" });

const credentialJson = (c: TrackerCredential): z.input<typeof credentialSchema> => ({
  id: c.id,
  organization_id: c.organizationId,
  host: c.host,
  auth_scheme: c.authScheme as "tracker_basic",
  username: c.username,
  created_at: iso(c.createdAt),
  updated_at: iso(c.updatedAt),
});

const putBody = z
  .object({
    host: z.string().min(1).max(2048).meta({ description: "A host, or a URL whose host is taken (stored bare)" }),
    api_token: z.string().min(1).max(4096).meta({ description: "Write-only: stored encrypted, never answered" }),
    auth_scheme: z.enum(["tracker_basic"]).default("tracker_basic"),
    username: z.string().min(1).max(255).meta({ description: "Required for tracker_basic" }),
  })
  .strict()
  .meta({ id: "TrackerCredentialPut" });

const organizationParams = z.object({ organization_id: z.uuid() });
const notFound = problemResponse("Not a super_admin, or no such login of the organization");

export function trackerCredentialRoutes(ctx: GatewayContext): Route[] {
  const credentials = ctx.clients.admin.trackerCredentials;
  const auth = ctx.auth.route("super_admin");
  const path = "/v1/admin/organizations/{organization_id}/tracker-credentials";
  return [
    defineRoute({
      method: "get",
      path,
      summary: "List an organization's ticket-tracker logins (never their tokens)",
      tags: TAGS,
      operationId: "adminListTrackerCredentials",
      auth,
      request: { params: organizationParams },
      responses: {
        200: {
          description: "The logins, by host",
          schema: z
            .object({ items: z.array(credentialSchema), total: z.number().int().min(0) })
            .meta({ id: "TrackerCredentialList" }),
        },
        404: notFound,
      },
      handler: async ({ params, call }) => {
        const { items } = await credentials.listTrackerCredentials({ organizationId: params.organization_id }, call);
        return { status: 200, body: { items: items.map(credentialJson), total: items.length } };
      },
    }),
    defineRoute({
      method: "put",
      path,
      summary: "Create or replace the organization's login for a host",
      description: "One login per (organization, host): a second PUT for the host replaces its username and token.",
      tags: TAGS,
      operationId: "adminPutTrackerCredential",
      auth,
      request: { params: organizationParams, body: putBody },
      responses: {
        200: { description: "The login, replaced", schema: credentialSchema },
        201: { description: "The login, created", schema: credentialSchema },
        404: notFound,
        422: problemResponse("A malformed host, scheme, username or token"),
      },
      handler: async ({ params, body, call }) => {
        const { credential, created } = await credentials.putTrackerCredential(
          {
            organizationId: params.organization_id,
            host: body.host,
            apiToken: body.api_token,
            authScheme: body.auth_scheme,
            username: body.username,
          },
          call,
        );
        return { status: created ? 201 : 200, body: credentialJson(credential!) };
      },
    }),
    defineRoute({
      method: "delete",
      path: `${path}/{credential_id}`,
      summary: "Remove one of the organization's ticket-tracker logins",
      tags: TAGS,
      operationId: "adminDeleteTrackerCredential",
      auth,
      request: { params: organizationParams.extend({ credential_id: z.uuid() }) },
      responses: { 204: { description: "Removed" }, 404: notFound },
      handler: async ({ params, call }) => {
        await credentials.deleteTrackerCredential(
          { organizationId: params.organization_id, credentialId: params.credential_id },
          call,
        );
        return { status: 204 };
      },
    }),
  ];
}
