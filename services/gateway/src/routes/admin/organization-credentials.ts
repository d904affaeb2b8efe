// What the admin service's organization credentials (container-registry logins, ticket-tracker logins) share:
// /v1/admin/organizations/{organization_id}/<resource>, super_admin only (everyone else 404), listed without their
// secret, created or replaced by PUT (201 / 200), removed by DELETE; the admin service audits each change. Each
// resource file keeps its own fields, body and service calls.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { CallOptions } from "@connectrpc/connect";
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route, type RouteAuth } from "../../api/route.ts";

/** A credential's timestamps as ISO text; "" when the service left one unset. */
export const credentialTimestamp = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : "");

export interface OrganizationCredentialResource<Credential, Schema extends z.ZodType, Body extends z.ZodType> {
  /** The last path segment: `registry-credentials`. */
  segment: string;
  tag: string;
  /** The credential's name in operation and schema ids: `RegistryCredential`. */
  name: string;
  /** The credential as answered (no secret). */
  schema: Schema;
  json(credential: Credential): z.input<Schema>;
  /** The PUT body, secret included. */
  putBody: Body;
  summaries: { list: string; put: string; delete: string };
  /** The 200 of the list. */
  listedDescription: string;
  /** The PUT's description: what makes two logins the same one. */
  putDescription: string;
  /** The PUT's 422. */
  malformedDescription: string;
  list(organizationId: string, call: CallOptions): Promise<Credential[]>;
  put(
    organizationId: string,
    body: z.output<Body>,
    call: CallOptions,
  ): Promise<{ credential?: Credential; created: boolean }>;
  remove(organizationId: string, credentialId: string, call: CallOptions): Promise<unknown>;
}

const organizationParams = z.object({ organization_id: z.uuid() });
const notFound = problemResponse("Not a super_admin, or no such login of the organization");

/** The list, PUT and DELETE routes of one organization-credential resource. */
export function organizationCredentialRoutes<Credential, Schema extends z.ZodType, Body extends z.ZodType>(
  auth: RouteAuth,
  resource: OrganizationCredentialResource<Credential, Schema, Body>,
): Route[] {
  // Erased to a plain schema here: `resource.json` already ties each answer to it.
  const credentialSchema: z.ZodType = resource.schema;
  const tags = [resource.tag];
  const path = `/v1/admin/organizations/{organization_id}/${resource.segment}`;
  return [
    defineRoute({
      method: "get",
      path,
      summary: resource.summaries.list,
      tags,
      operationId: `adminList${resource.name}s`,
      auth,
      request: { params: organizationParams },
      responses: {
        200: {
          description: resource.listedDescription,
          schema: z
            .object({ items: z.array(credentialSchema), total: z.number().int().min(0) })
            .meta({ id: `${resource.name}List` }),
        },
        404: notFound,
      },
      handler: async ({ params, call }) => {
        const items = await resource.list(params.organization_id, call);
        return { status: 200, body: { items: items.map((c) => resource.json(c)), total: items.length } };
      },
    }),
    defineRoute({
      method: "put",
      path,
      summary: resource.summaries.put,
      description: resource.putDescription,
      tags,
      operationId: `adminPut${resource.name}`,
      auth,
      request: { params: organizationParams, body: resource.putBody },
      responses: {
        200: { description: "The login, replaced", schema: credentialSchema },
        201: { description: "The login, created", schema: credentialSchema },
        404: notFound,
        422: problemResponse(resource.malformedDescription),
      },
      handler: async ({ params, body, call }) => {
        // The registry parsed the body with `resource.putBody` (the conditional type stays open for a generic).
        const { credential, created } = await resource.put(params.organization_id, body as z.output<Body>, call);
        return { status: created ? 201 : 200, body: resource.json(credential!) };
      },
    }),
    defineRoute({
      method: "delete",
      path: `${path}/{credential_id}`,
      summary: resource.summaries.delete,
      tags,
      operationId: `adminDelete${resource.name}`,
      auth,
      request: { params: organizationParams.extend({ credential_id: z.uuid() }) },
      responses: { 204: { description: "Removed" }, 404: notFound },
      handler: async ({ params, call }) => {
        await resource.remove(params.organization_id, params.credential_id, call);
        return { status: 204 };
      },
    }),
  ];
}
