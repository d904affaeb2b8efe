// /v1/api-keys: issue, list, revoke and narrow keys (people only; a key managing keys is 403), and the admin
// hash-format statistics (ApiKeyService). The raw key crosses the gateway once, in the issue answer.
import { z } from "zod";
import { NUMBERED_PAGE_SIZE } from "@sca/paging";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { apiKeyJson, apiKeySchema } from "./views.ts";

const TAGS = ["api keys"];
const SCOPES = ["org", "team", "project"] as const;

// The scope rule (org: neither team nor project; team: a team; project: a team and its project) is the schema's own
// oneOf, so clients see it in the document; identity applies the same rule (planIssue) for callers inside.
const issueCommon = {
  name: z.string().min(1).max(100),
  expires_in_days: z.number().int().min(1).max(1825).nullable().optional(),
  permission_breadth: z.enum(["read_only", "read_write"]).default("read_only"),
  service_account_id: z.uuid().nullable().optional(),
  organization_id: z
    .uuid()
    .nullable()
    .optional()
    .meta({ description: "org keys: required when several organizations exist" }),
};
const absent = (scope: string) =>
  z
    .null()
    .optional()
    .meta({ description: `absent (or null) for a ${scope}-scoped key` });
const issueBody = z.discriminatedUnion("scope", [
  z.object({ ...issueCommon, scope: z.literal("org"), team_id: absent("org"), project_id: absent("org") }),
  z.object({ ...issueCommon, scope: z.literal("team"), team_id: z.uuid(), project_id: absent("team") }),
  z.object({ ...issueCommon, scope: z.literal("project"), team_id: z.uuid(), project_id: z.uuid() }),
]);
const keyParams = z.object({ id: z.uuid() });
const notFound = problemResponse("No such key, or not one the caller may manage");

// Query strings carry text: only the words true and false are booleans.
const queryFlag = z
  .enum(["true", "false"])
  .default("false")
  .transform((v) => v === "true");

const issuedSchema = apiKeySchema
  .extend({
    raw_key: z.string().meta({ description: "tos_<prefix>_<secret>: shown in this answer only, never again" }),
  })
  .meta({ id: "IssuedApiKey" });

export function apiKeyRoutes(ctx: GatewayContext): Route[] {
  const apiKeys = ctx.clients.identity.apiKeys;
  const caller = ctx.auth.route("caller");
  return [
    defineRoute({
      method: "get",
      path: "/v1/api-keys",
      summary: "List the keys the caller may manage",
      description: "Its own keys, those of teams it administers (team_admin and above), every key for a super_admin.",
      tags: TAGS,
      operationId: "listApiKeys",
      auth: caller,
      request: {
        query: pageSizePagination.query(NUMBERED_PAGE_SIZE).extend({
          scope: z.enum(SCOPES).optional(),
          team_id: z.uuid().optional(),
          project_id: z.uuid().optional(),
          include_revoked: queryFlag,
        }),
      },
      responses: { 200: { description: "A page of keys", schema: pageSizePagination.envelope(apiKeySchema) } },
      handler: async ({ query, call }) => {
        const list = await apiKeys.listApiKeys(
          {
            scope: query.scope,
            teamId: query.team_id,
            projectId: query.project_id,
            includeRevoked: query.include_revoked,
            page: pageSizePagination.request(query),
          },
          call,
        );
        return { status: 200, body: pageSizePagination.page(list.items.map(apiKeyJson), list.page?.total ?? 0, query) };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/api-keys",
      summary: "Issue a key",
      description:
        "org: super_admin; team: team_admin of the team; project: developer on the project's team. " +
        "expires_in_days null (or absent) never expires. The answer carries raw_key, shown once.",
      tags: TAGS,
      operationId: "issueApiKey",
      auth: caller,
      request: {
        body: issueBody,
      },
      responses: {
        201: { description: "The key, with raw_key", schema: issuedSchema },
        403: problemResponse("The caller may not issue this scope here, or is an API key"),
        404: problemResponse("A team the caller has no role on"),
      },
      handler: async ({ body, call }) => {
        const issued = await apiKeys.issueApiKey(
          {
            name: body.name,
            scope: body.scope,
            teamId: body.team_id ?? undefined,
            projectId: body.project_id ?? undefined,
            expiresInDays: body.expires_in_days ?? undefined,
            permissionBreadth: body.permission_breadth,
            serviceAccountId: body.service_account_id ?? undefined,
            organizationId: body.organization_id ?? undefined,
          },
          call,
        );
        return { status: 201, body: { ...apiKeyJson(issued.key!), raw_key: issued.rawKey } };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/api-keys/{id}",
      summary: "Revoke a key",
      description:
        "Soft delete: revoked_at is set (the first time is kept). The key is refused from the next request on.",
      tags: TAGS,
      operationId: "revokeApiKey",
      auth: caller,
      request: { params: keyParams },
      responses: { 204: { description: "Revoked" }, 404: notFound },
      handler: async ({ params, call }) => {
        await apiKeys.revokeApiKey({ keyId: params.id }, call);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/api-keys/{id}/narrow",
      summary: "Narrow a key to read_only",
      description:
        "One way: a key is never widened. Narrowing a read_only key changes nothing. Holds from the next request on.",
      tags: TAGS,
      operationId: "narrowApiKey",
      auth: caller,
      request: { params: keyParams, body: z.object({ permission_breadth: z.literal("read_only") }) },
      responses: { 200: { description: "The key", schema: apiKeySchema }, 404: notFound },
      handler: async ({ params, body, call }) => {
        const { key } = await apiKeys.narrowApiKey(
          { keyId: params.id, permissionBreadth: body.permission_breadth },
          call,
        );
        return { status: 200, body: apiKeyJson(key!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/api-keys/hash-stats",
      summary: "Hash formats of the active keys",
      description: "Counts over keys neither revoked nor expired.",
      tags: ["admin: api keys"],
      operationId: "adminApiKeyHashStats",
      auth: ctx.auth.route("super_admin"),
      responses: {
        200: {
          description: "The counts",
          schema: z
            .object({
              active_total: z.number().int(),
              hmac_sha256_count: z.number().int(),
              legacy_bcrypt_count: z.number().int(),
            })
            .meta({ id: "ApiKeyHashStats" }),
        },
      },
      handler: async ({ call }) => {
        const s = await apiKeys.getApiKeyHashStats({}, call);
        return {
          status: 200,
          body: {
            active_total: s.activeTotal,
            hmac_sha256_count: s.hmacSha256Count,
            legacy_bcrypt_count: s.legacyBcryptCount,
          },
        };
      },
    }),
  ];
}
