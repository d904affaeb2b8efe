// POST /v1/webhooks/scm_a and /v1/webhooks/scm_b (docs/scm.md): a repository host tells us about a push or a pull
// (merge) request. The body is streamed up to WEBHOOK_MAX_BODY_BYTES (413 past it, nothing kept beyond the cap),
// parsed, and the projects its repository names are asked of projects before any credential is looked at; then
// each project's own secret is checked (scm_a: HMAC-SHA256 of the raw body in X-Hub-Signature-256, verified by
// @octokit/webhooks-methods in constant time; scm_b: the secret itself in X-Scm-Token, compared in constant time),
// and each project it matches gets a source scan of the ref (scan-orchestrator: trigger webhook, normal admission,
// one scan per delivery id).
import { createHash, timingSafeEqual } from "node:crypto";
import { createContextValues, type CallOptions } from "@connectrpc/connect";
import { verify } from "@octokit/webhooks-methods";
import type { Request } from "express";
import { z } from "zod";
import { ProblemError } from "@sca/problem";
import type { WebhookTarget } from "@sca/proto/sca/projects/v1/webhooks_pb.ts";
import { callerTokenKey, serviceCallerToken } from "@sca/rpc";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { clientAddressOf } from "../../http/client-address.ts";
import { perAddressLimitText } from "../../http/rate-limit.ts";
import { readWebhook, type WebhookProvider } from "./webhook-payloads.ts";

const tooLarge = (maxBytes: number) =>
  new ProblemError({
    status: 413,
    code: "body_too_large",
    detail: `The webhook body is larger than ${maxBytes} bytes (WEBHOOK_MAX_BODY_BYTES).`,
    extensions: { max_bytes: maxBytes },
  });

const unauthorized = (detail: string) => new ProblemError({ status: 401, code: "unauthorized", detail });

/**
 * The body, whole, or 413: a declared length past the cap is refused before a byte is read, a body that grows past
 * it as soon as it does (the rest is drained, never kept).
 */
export async function webhookBody(req: Request, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    throw tooLarge(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      req.resume();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether the request carries this project's credential. */
async function carriesSecret(provider: WebhookProvider, req: Request, raw: string, secret: string): Promise<boolean> {
  if (provider === "scm_a") {
    const signature = req.get("x-hub-signature-256") ?? "";
    return signature !== "" && raw !== "" && (await verify(secret, raw, signature));
  }
  const token = req.get("x-scm-token") ?? "";
  // Digests first: equal lengths for timingSafeEqual, and no length leaked.
  return token !== "" && timingSafeEqual(digest(token), digest(secret));
}

/** The host's delivery id, else the body's digest (a redelivery repeats both). */
function deliveryIdOf(provider: WebhookProvider, req: Request, raw: Buffer): string {
  const header = provider === "scm_a" ? req.get("x-github-delivery") : req.get("x-gitlab-event-uuid");
  const id = header?.trim() ?? "";
  return id !== "" && id.length <= 128 ? id : `sha256:${createHash("sha256").update(raw).digest("hex")}`;
}

const answerSchema = z
  .object({
    status: z.enum(["queued", "ignored"]),
    reason: z.string().optional().meta({ description: "Why nothing was started (status ignored)" }),
    scans: z
      .array(
        z.object({
          project_id: z.uuid(),
          scan_id: z.uuid(),
          duplicate: z.boolean().meta({ description: "This delivery had already started the scan" }),
        }),
      )
      .meta({ description: "The scan of each project the credential matched" }),
  })
  .meta({ id: "WebhookAccepted" });

const PROVIDER_TEXT: Record<WebhookProvider, string> = {
  scm_a:
    "Host A's push and pull_request events (X-GitHub-Event), signed with the project's secret: " +
    "X-Hub-Signature-256 is sha256=<hex HMAC-SHA256 of the raw body>.",
  scm_b: "Host B's push, tag_push and merge_request events (object_kind), with the project's secret in X-Scm-Token.",
};

export function webhookIntakeRoutes(ctx: GatewayContext): Route[] {
  const maxBytes = ctx.config.WEBHOOK_MAX_BODY_BYTES;
  const limit = ctx.rateLimit({ name: "webhook", ...ctx.config.WEBHOOK_RATE_LIMIT, key: clientAddressOf });
  const asGateway = async (): Promise<CallOptions> => ({
    contextValues: createContextValues().set(
      callerTokenKey,
      await serviceCallerToken("gateway", ctx.config.SECRET_KEY),
    ),
  });

  const route = (provider: WebhookProvider) =>
    defineRoute({
      method: "post",
      path: `/v1/webhooks/${provider}`,
      summary: `Receive a repository webhook (${provider})`,
      description:
        `${PROVIDER_TEXT[provider]} Anonymous: the credential is the project's webhook secret. A push or an ` +
        "opened or updated pull (merge) request starts a source scan of its ref in each project whose git_url is " +
        "the repository; ping and other events are acknowledged. A redelivery (same delivery id) starts nothing. " +
        `Bodies over WEBHOOK_MAX_BODY_BYTES (${maxBytes}) are 413. ` +
        perAddressLimitText(ctx.config, "WEBHOOK_RATE_LIMIT"),
      tags: ["Webhooks"],
      operationId: `receive_webhook_${provider}`,
      middleware: [limit],
      request: {
        streamedBody: {
          description: "The host's event payload, as it sent it",
          content: { "application/json": z.record(z.string(), z.unknown()) },
        },
      },
      responses: {
        202: {
          description: "Accepted: the scans started (or found started), or why nothing was",
          schema: answerSchema,
        },
        400: problemResponse("The body is not JSON (malformed_json)"),
        401: problemResponse("Missing or wrong signature or token"),
        404: problemResponse("No project is registered for the repository"),
        409: problemResponse("The project is archived (project_archived)"),
        413: problemResponse("The body is larger than WEBHOOK_MAX_BODY_BYTES"),
        422: problemResponse("The payload lacks the fields its event needs"),
        429: problemResponse("Too many webhooks from this address, or the team's concurrent-scan cap (Retry-After)"),
        503: problemResponse("New scans are refused at the disk hard limit (disk-pressure)"),
      },
      handler: async ({ req }) => {
        const raw = await webhookBody(req, maxBytes);
        const text = raw.toString("utf8");
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (err) {
          throw new ProblemError({
            status: 400,
            code: "malformed_json",
            detail: `The webhook body is not valid JSON: ${(err as Error).message}`,
          });
        }
        const reading = readWebhook(provider, req.get("x-github-event") ?? "", parsed);
        if (reading.kind === "invalid") throw ProblemError.validation([{ path: "body", message: reading.detail }]);
        // An event naming no repository (a bare ping) has no project to check against: acknowledged.
        if (reading.kind === "ignored" && reading.repositoryUrls.length === 0)
          return { status: 202, body: { status: "ignored", reason: reading.reason, scans: [] as never[] } };
        const call = await asGateway();
        // Resolved before the credential is checked, so an unknown repository is a 404 whatever it carries, and
        // the secret checked is the project's own.
        const { targets } = await ctx.clients.projects.webhooks.resolveWebhookTargets(
          { provider, repositoryUrls: reading.repositoryUrls },
          call,
        );
        if (targets.length === 0) throw ProblemError.notFound("No project is registered for this repository.");
        const matched: WebhookTarget[] = [];
        for (const target of targets)
          if (target.secret !== undefined && (await carriesSecret(provider, req, text, target.secret)))
            matched.push(target);
        if (matched.length === 0) throw unauthorized("The webhook's signature or token is not this project's.");
        if (reading.kind === "ignored")
          return { status: 202, body: { status: "ignored", reason: reading.reason, scans: [] as never[] } };
        const open = matched.filter((t) => !t.archived);
        if (open.length === 0)
          throw new ProblemError({ status: 409, code: "project_archived", detail: "The project is archived." });
        const deliveryId = deliveryIdOf(provider, req, raw);
        const scans = [];
        for (const target of open) {
          const answer = await ctx.clients["scan-orchestrator"].scans.createWebhookScan(
            {
              projectId: target.projectId,
              teamId: target.teamId,
              projectName: target.name,
              projectSlug: target.slug,
              ref: reading.ref,
              provider,
              deliveryId,
              event: reading.event,
              repository: reading.repository,
              ...(reading.pullRequestNumber === undefined
                ? {}
                : { pullRequestNumber: BigInt(reading.pullRequestNumber) }),
              ...(reading.baseRef === undefined ? {} : { baseRef: reading.baseRef }),
            },
            call,
          );
          scans.push({ project_id: target.projectId, scan_id: answer.scan!.id, duplicate: answer.duplicate });
        }
        return { status: 202, body: { status: "queued", scans } };
      },
    });

  return [route("scm_a"), route("scm_b")];
}
