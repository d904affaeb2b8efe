// /v1/admin/organizations/{organization_id}/registry-credentials (RegistryCredentialService of admin): an
// organization's container-registry logins, super_admin only (everyone else 404). The password is write-only.
import type { RegistryCredential } from "@sca/proto/sca/admin/v1/registry_credentials_pb.ts";
import { z } from "zod";
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { credentialTimestamp, organizationCredentialRoutes } from "./organization-credentials.ts";

const credentialSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    registry_host: z.string().meta({ description: "host[:port], lower-case, as image references name the registry" }),
    username: z.string(),
    allowed: z.boolean().meta({ description: "false: kept, but not used for pulls" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "RegistryCredential", description: "A container-registry login; its password is never answered" });

const credentialJson = (c: RegistryCredential): z.input<typeof credentialSchema> => ({
  id: c.id,
  organization_id: c.organizationId,
  registry_host: c.registryHost,
  username: c.username,
  allowed: c.allowed,
  created_at: credentialTimestamp(c.createdAt),
  updated_at: credentialTimestamp(c.updatedAt),
});

const putBody = z
  .object({
    registry_host: z
      .string()
      .min(1)
      .max(2048)
      .meta({ description: "A host[:port], or a URL whose host is taken (stored as host[:port])" }),
    username: z.string().min(1).max(255),
    password: z.string().min(1).max(4096).meta({ description: "Write-only: stored encrypted, never answered" }),
    allowed: z.boolean().optional().meta({ description: "Default true" }),
  })
  .strict()
  .meta({ id: "RegistryCredentialPut" });

export function registryCredentialRoutes(ctx: GatewayContext): Route[] {
  const credentials = ctx.clients.admin.registryCredentials;
  return organizationCredentialRoutes(ctx.auth.route("super_admin"), {
    segment: "registry-credentials",
    tag: "admin: registry credentials",
    name: "RegistryCredential",
    schema: credentialSchema,
    json: credentialJson,
    putBody,
    summaries: {
      list: "List an organization's container-registry logins (never their passwords)",
      put: "Create or replace the organization's login for a registry",
      delete: "Remove one of the organization's container-registry logins",
    },
    listedDescription: "The logins, by registry host",
    putDescription:
      "One login per (organization, registry host): a second PUT for the host replaces its username and password.",
    malformedDescription: "A malformed registry host, username or password",
    list: async (organizationId, call) => (await credentials.listRegistryCredentials({ organizationId }, call)).items,
    put: (organizationId, body, call) =>
      credentials.putRegistryCredential(
        {
          organizationId,
          registryHost: body.registry_host,
          username: body.username,
          password: body.password,
          ...(body.allowed === undefined ? {} : { allowed: body.allowed }),
        },
        call,
      ),
    remove: (organizationId, credentialId, call) =>
      credentials.deleteRegistryCredential({ organizationId, credentialId }, call),
  });
}
