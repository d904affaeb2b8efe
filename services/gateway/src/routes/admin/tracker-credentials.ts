// /v1/admin/organizations/{organization_id}/tracker-credentials (TrackerCredentialService of admin): an
// organization's ticket-tracker logins, super_admin only (everyone else 404). The api_token is write-only.
import type { TrackerCredential } from "@sca/proto/sca/admin/v1/tracker_credentials_pb.ts";
import { z } from "zod";
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { credentialTimestamp, organizationCredentialRoutes } from "./organization-credentials.ts";

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
  created_at: credentialTimestamp(c.createdAt),
  updated_at: credentialTimestamp(c.updatedAt),
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

export function trackerCredentialRoutes(ctx: GatewayContext): Route[] {
  const credentials = ctx.clients.admin.trackerCredentials;
  return organizationCredentialRoutes(ctx.auth.route("super_admin"), {
    segment: "tracker-credentials",
    tag: "admin: tracker credentials",
    name: "TrackerCredential",
    schema: credentialSchema,
    json: credentialJson,
    putBody,
    summaries: {
      list: "List an organization's ticket-tracker logins (never their tokens)",
      put: "Create or replace the organization's login for a host",
      delete: "Remove one of the organization's ticket-tracker logins",
    },
    listedDescription: "The logins, by host",
    putDescription: "One login per (organization, host): a second PUT for the host replaces its username and token.",
    malformedDescription: "A malformed host, scheme, username or token",
    list: async (organizationId, call) => (await credentials.listTrackerCredentials({ organizationId }, call)).items,
    put: (organizationId, body, call) =>
      credentials.putTrackerCredential(
        {
          organizationId,
          host: body.host,
          apiToken: body.api_token,
          authScheme: body.auth_scheme,
          username: body.username,
        },
        call,
      ),
    remove: (organizationId, credentialId, call) =>
      credentials.deleteTrackerCredential({ organizationId, credentialId }, call),
  });
}
