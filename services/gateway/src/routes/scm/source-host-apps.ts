// Source-host app credentials and their installations (SourceHostAppService; docs/scm.md, "App credentials"). The
// spec gives their shapes, not their paths: these are ours, under /v1/scm/apps.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { NUMBERED_PAGE_SIZE } from "@sca/paging";
import type { AppCredential, AppInstallation } from "@sca/proto/sca/projects/v1/source_host_apps_pb.ts";
import { z } from "zod";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { booleanParam } from "../../api/query-params.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

const credentialSchema = z
  .object({
    id: z.uuid(),
    team_id: z.uuid(),
    app_id: z.string(),
    app_slug: z.string().nullable(),
    has_private_key: z.boolean(),
    has_webhook_secret: z.boolean(),
    created_by_user_id: z.uuid().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    revoked_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "SourceHostAppCredential" });

const installationSchema = z
  .object({
    app_credential_id: z.uuid(),
    installation_id: z.string(),
    account_login: z.string().nullable(),
    project_id: z.uuid().nullable(),
    repository_full_name: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "SourceHostAppInstallation" });

const credentialJson = (c: AppCredential) => ({
  id: c.id,
  team_id: c.teamId,
  app_id: c.appId,
  app_slug: c.appSlug ?? null,
  has_private_key: c.hasPrivateKey,
  has_webhook_secret: c.hasWebhookSecret,
  created_by_user_id: c.createdByUserId ?? null,
  created_at: iso(c.createdAt)!,
  updated_at: iso(c.updatedAt)!,
  revoked_at: iso(c.revokedAt),
});

const installationJson = (i: AppInstallation) => ({
  app_credential_id: i.appCredentialId,
  installation_id: i.installationId,
  account_login: i.accountLogin ?? null,
  project_id: i.projectId ?? null,
  repository_full_name: i.repositoryFullName ?? null,
  created_at: iso(i.createdAt)!,
  updated_at: iso(i.updatedAt)!,
});

const params = z.object({ app_credential_id: z.uuid() });
const shortId = z.string().min(1).max(64);

export function sourceHostAppRoutes(ctx: GatewayContext): Route[] {
  const apps = ctx.clients.projects.apps;
  const auth = ctx.auth.route("caller");
  const refusals = {
    401: problemResponse("No valid credential"),
    403: problemResponse("Not team_admin of the app's team"),
    404: problemResponse("No such app credential among the caller's teams"),
  };
  const tags = ["Source-host apps"];
  return [
    defineRoute({
      method: "get",
      path: "/v1/scm/apps",
      summary: "List source-host app credentials",
      description:
        "Members of the team (team_id), or of any of the caller's teams; newest first; revoked ones only on ask.",
      tags,
      operationId: "listSourceHostApps",
      auth,
      request: {
        query: pageSizePagination
          .query(NUMBERED_PAGE_SIZE)
          .extend({ team_id: z.uuid().optional(), include_revoked: booleanParam() }),
      },
      responses: {
        200: {
          description: "A page of credentials",
          schema: pageSizePagination.envelope(credentialSchema).meta({ id: "SourceHostAppCredentialPage" }),
        },
        401: refusals[401],
        403: problemResponse("Not a member of team_id"),
      },
      handler: async ({ query, call }) => {
        const answer = await apps.listAppCredentials(
          {
            ...(query.team_id === undefined ? {} : { teamId: query.team_id }),
            includeRevoked: query.include_revoked ?? false,
            ...pageSizePagination.request(query),
          },
          call,
        );
        return {
          status: 200,
          body: pageSizePagination.page(answer.items.map(credentialJson), Number(answer.total), query),
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/scm/apps",
      summary: "Register a source-host app credential",
      description:
        "team_admin of team_id. The private key (RSA, PEM) and the webhook secret are write-only: stored encrypted, " +
        "never answered (has_private_key, has_webhook_secret say they are held).",
      tags,
      operationId: "registerSourceHostApp",
      auth,
      request: {
        query: z.object({ team_id: z.uuid() }),
        body: z.object({
          app_id: shortId,
          private_key: z.string().min(1).max(16_384),
          app_slug: z.string().min(1).max(255).optional(),
          webhook_secret: z.string().min(1).max(1024).optional(),
        }),
      },
      responses: {
        201: { description: "The credential", schema: credentialSchema },
        401: refusals[401],
        403: problemResponse("Not team_admin of team_id"),
      },
      handler: async ({ query, body, call }) => {
        const answer = await apps.registerAppCredential(
          {
            teamId: query.team_id,
            appId: body.app_id,
            privateKey: body.private_key,
            ...(body.app_slug === undefined ? {} : { appSlug: body.app_slug }),
            ...(body.webhook_secret === undefined ? {} : { webhookSecret: body.webhook_secret }),
          },
          call,
        );
        return { status: 201, body: credentialJson(answer.credential!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/scm/apps/{app_credential_id}",
      summary: "Fetch a source-host app credential",
      description: "Members of the app's team.",
      tags,
      operationId: "getSourceHostApp",
      auth,
      request: { params },
      responses: { 200: { description: "The credential", schema: credentialSchema }, ...refusals },
      handler: async ({ params, call }) => ({
        status: 200,
        body: credentialJson((await apps.getAppCredential({ id: params.app_credential_id }, call)).credential!),
      }),
    }),
    defineRoute({
      method: "delete",
      path: "/v1/scm/apps/{app_credential_id}",
      summary: "Revoke a source-host app credential",
      description:
        "team_admin of the app's team. Soft: revoked_at is set and kept; its installations stop opting their " +
        "projects in. Revoking a revoked credential answers it unchanged.",
      tags,
      operationId: "revokeSourceHostApp",
      auth,
      request: { params },
      responses: { 200: { description: "The revoked credential", schema: credentialSchema }, ...refusals },
      handler: async ({ params, call }) => ({
        status: 200,
        body: credentialJson((await apps.revokeAppCredential({ id: params.app_credential_id }, call)).credential!),
      }),
    }),
    defineRoute({
      method: "get",
      path: "/v1/scm/apps/{app_credential_id}/installations",
      summary: "List an app's installations",
      description: "Members of the app's team; newest first.",
      tags,
      operationId: "listSourceHostAppInstallations",
      auth,
      request: { params, query: pageSizePagination.query(NUMBERED_PAGE_SIZE) },
      responses: {
        200: {
          description: "A page of installations",
          schema: pageSizePagination.envelope(installationSchema).meta({ id: "SourceHostAppInstallationPage" }),
        },
        ...refusals,
      },
      handler: async ({ params, query, call }) => {
        const answer = await apps.listInstallations(
          { appCredentialId: params.app_credential_id, ...pageSizePagination.request(query) },
          call,
        );
        return {
          status: 200,
          body: pageSizePagination.page(answer.items.map(installationJson), Number(answer.total), query),
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/scm/apps/{app_credential_id}/installations",
      summary: "Link an installation to a project and repository",
      description:
        "team_admin of the app's team. Creates or updates the installation; project_id must be a project of the " +
        "app's team, which is then unlinked from any other installation. A project linked to a live installation " +
        "with a repository_full_name is opted in to remediation pull requests.",
      tags,
      operationId: "linkSourceHostAppInstallation",
      auth,
      request: {
        params,
        body: z.object({
          installation_id: shortId,
          account_login: z.string().min(1).max(255).optional(),
          project_id: z.uuid().optional(),
          repository_full_name: z.string().min(3).max(255).optional(),
        }),
      },
      responses: {
        200: { description: "The installation", schema: installationSchema },
        ...refusals,
        409: problemResponse("The app credential is revoked (app_credential_revoked)"),
        422: problemResponse("Not a project of the app's team, or not owner/name"),
      },
      handler: async ({ params, body, call }) => {
        const answer = await apps.linkInstallation(
          {
            appCredentialId: params.app_credential_id,
            installationId: body.installation_id,
            ...(body.account_login === undefined ? {} : { accountLogin: body.account_login }),
            ...(body.project_id === undefined ? {} : { projectId: body.project_id }),
            ...(body.repository_full_name === undefined ? {} : { repositoryFullName: body.repository_full_name }),
          },
          call,
        );
        return { status: 200, body: installationJson(answer.installation!) };
      },
    }),
  ];
}
