// /v1/admin/organizations/{organization_id}/registry-credentials (RegistryCredentialService of admin): an
// organization's container-registry logins, super_admin only (everyone else 404). The password is write-only.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { RegistryCredential } from "@sca/proto/sca/admin/v1/registry_credentials_pb.ts";
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const TAGS = ["admin: registry credentials"];
const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : "");

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
  created_at: iso(c.createdAt),
  updated_at: iso(c.updatedAt),
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

const organizationParams = z.object({ organization_id: z.uuid() });
const notFound = problemResponse("Not a super_admin, or no such login of the organization");

export function registryCredentialRoutes(ctx: GatewayContext): Route[] {
  const credentials = ctx.clients.admin.registryCredentials;
  const auth = ctx.auth.route("super_admin");
  const path = "/v1/admin/organizations/{organization_id}/registry-credentials";
  return [
    defineRoute({
      method: "get",
      path,
      summary: "List an organization's container-registry logins (never their passwords)",
      tags: TAGS,
      operationId: "adminListRegistryCredentials",
      auth,
      request: { params: organizationParams },
      responses: {
        200: {
          description: "The logins, by registry host",
          schema: z
            .object({ items: z.array(credentialSchema), total: z.number().int().min(0) })
            .meta({ id: "RegistryCredentialList" }),
        },
        404: notFound,
      },
      handler: async ({ params, call }) => {
        const { items } = await credentials.listRegistryCredentials({ organizationId: params.organization_id }, call);
        return { status: 200, body: { items: items.map(credentialJson), total: items.length } };
      },
    }),
    defineRoute({
      method: "put",
      path,
      summary: "Create or replace the organization's login for a registry",
      description:
        "One login per (organization, registry host): a second PUT for the host replaces its username and password.",
      tags: TAGS,
      operationId: "adminPutRegistryCredential",
      auth,
      request: { params: organizationParams, body: putBody },
      responses: {
        200: { description: "The login, replaced", schema: credentialSchema },
        201: { description: "The login, created", schema: credentialSchema },
        404: notFound,
        422: problemResponse("A malformed registry host, username or password"),
      },
      handler: async ({ params, body, call }) => {
        const { credential, created } = await credentials.putRegistryCredential(
          {
            organizationId: params.organization_id,
            registryHost: body.registry_host,
            username: body.username,
            password: body.password,
            ...(body.allowed === undefined ? {} : { allowed: body.allowed }),
          },
          call,
        );
        return { status: created ? 201 : 200, body: credentialJson(credential!) };
      },
    }),
    defineRoute({
      method: "delete",
      path: `${path}/{credential_id}`,
      summary: "Remove one of the organization's container-registry logins",
      tags: TAGS,
      operationId: "adminDeleteRegistryCredential",
      auth,
      request: { params: organizationParams.extend({ credential_id: z.uuid() }) },
      responses: { 204: { description: "Removed" }, 404: notFound },
      handler: async ({ params, call }) => {
        await credentials.deleteRegistryCredential(
          { organizationId: params.organization_id, credentialId: params.credential_id },
          call,
        );
        return { status: 204 };
      },
    }),
  ];
}
