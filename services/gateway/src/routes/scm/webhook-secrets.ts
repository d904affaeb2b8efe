// A project's repository-webhook secret (ProjectWebhookService; docs/scm.md, "Secrets"): its status, and issuing
// one (shown once, replacing any earlier one at once). team_admin of the project's team.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const provider = z.enum(["scm_a", "scm_b"]);
const params = z.object({ id: z.uuid() });

const statusSchema = z
  .object({
    configured: z.boolean(),
    project_id: z.uuid(),
    provider: provider.nullable().meta({ description: "The current secret's provider; null when none" }),
  })
  .meta({ id: "ProjectWebhookStatus" });

const issuedSchema = z
  .object({
    issued_at: z.iso.datetime(),
    project_id: z.uuid(),
    provider,
    replaced_existing: z.boolean(),
    secret: z.string().meta({ description: "Shown once: configure it at the host now" }),
  })
  .meta({ id: "ProjectWebhookSecret" });

export function webhookSecretRoutes(ctx: GatewayContext): Route[] {
  const webhooks = ctx.clients.projects.webhooks;
  const refusals = {
    401: problemResponse("No valid credential"),
    403: problemResponse("Not team_admin of the project's team"),
    404: problemResponse("No such project"),
  };
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/webhook",
      summary: "Describe a project's repository-webhook secret",
      description:
        "team_admin of the project's team. Whether a secret is configured and for which provider; never the secret.",
      tags: ["Webhooks"],
      operationId: "getProjectWebhookStatus",
      auth: ctx.auth.route("caller"),
      request: { params },
      responses: { 200: { description: "The status", schema: statusSchema }, ...refusals },
      handler: async ({ params, call }) => {
        const answer = await webhooks.getWebhookStatus({ projectId: params.id }, call);
        return {
          status: 200,
          body: {
            configured: answer.configured,
            project_id: answer.projectId,
            provider: (answer.provider ?? null) as "scm_a" | "scm_b" | null,
          },
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/projects/{id}/webhook",
      summary: "Issue a project's repository-webhook secret",
      description:
        "team_admin of the project's team. A new random secret for the provider (scm_a: the HMAC key of " +
        "X-Hub-Signature-256; scm_b: the X-Scm-Token value), stored encrypted and shown only in this answer; an " +
        "earlier secret stops being accepted at once.",
      tags: ["Webhooks"],
      operationId: "issueProjectWebhookSecret",
      auth: ctx.auth.route("caller"),
      request: { params, body: z.object({ provider }) },
      responses: {
        201: { description: "The new secret", schema: issuedSchema },
        ...refusals,
        409: problemResponse("The project is archived (project_archived)"),
      },
      handler: async ({ params, body, call }) => {
        const answer = await webhooks.issueWebhookSecret({ projectId: params.id, provider: body.provider }, call);
        return {
          status: 201,
          body: {
            issued_at: timestampDate(answer.issuedAt!).toISOString(),
            project_id: answer.projectId,
            provider: answer.provider as "scm_a" | "scm_b",
            replaced_existing: answer.replacedExisting,
            secret: answer.secret,
          },
        };
      },
    }),
  ];
}
