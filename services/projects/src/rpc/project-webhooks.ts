// ProjectWebhookService (docs/scm.md): a project's repository-webhook secret, issued and described to its team
// admins, and the projects an inbound webhook names, with their secrets unsealed for the gateway alone.
import { randomBytes } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import {
  GetWebhookStatusResponseSchema,
  IssueWebhookSecretResponseSchema,
  ProjectWebhookService,
  ResolveWebhookTargetsResponseSchema,
  WebhookTargetSchema,
} from "@sca/proto/sca/projects/v1/webhooks_pb.ts";
import { requireCaller, requireService } from "@sca/rpc";
import { open, seal } from "@sca/secret-box";
import { mayRead, mayUpdate } from "../domain/project-access.ts";
import { isUuid } from "../domain/project-fields.ts";
import {
  isWebhookProvider,
  MAX_WEBHOOK_TARGETS,
  repositoryKey,
  repositoryName,
  WEBHOOK_PROVIDERS,
} from "../domain/webhooks.ts";
import { emitAudit } from "../events/project-events.ts";
import { lockProject } from "../store/projects.ts";
import { replaceWebhookSecret, webhookCandidates, webhookSecretOf } from "../store/webhook-secrets.ts";
import { enforce, projectNotFound, readableProject } from "./project-lookup.ts";

/** Only the edge receives webhooks, so only it may read the secrets they are checked against. */
export const WEBHOOK_INTAKE_CALLER = "gateway";

const ADMIN_ONLY = "A project's webhook secret is managed by the team_admin role on its team.";

export interface ProjectWebhookDeps {
  orm: MikroORM;
  /** The key webhook secrets are sealed with (@sca/secret-box, purpose webhook-secret). */
  webhookSecretKey: Buffer;
  wakeRelay(): void;
}

/** 32 random bytes, hex: what the host is configured with. */
const newSecret = () => randomBytes(32).toString("hex");

export function registerProjectWebhookService(router: ConnectRouter, deps: ProjectWebhookDeps): void {
  router.service(ProjectWebhookService, {
    async issueWebhookSecret(req, ctx) {
      const caller = requireCaller(ctx);
      if (!isWebhookProvider(req.provider))
        throw ProblemError.validation([
          { path: "body.provider", message: `must be one of ${WEBHOOK_PROVIDERS.join(", ")}` },
        ]);
      const provider = req.provider;
      if (!isUuid(req.projectId)) throw projectNotFound();
      const secret = newSecret();
      const now = new Date();
      const { projectId, replaced } = await deps.orm.em.fork().transactional(async (em) => {
        const project = await lockProject(em, req.projectId.toLowerCase());
        if (!project) throw projectNotFound();
        if (!mayRead(caller, project)) throw ProblemError.forbidden("You are not a member of this project's team.");
        enforce(mayUpdate(caller, project), ADMIN_ONLY);
        if (project.archivedAt)
          throw new ProblemError({ status: 409, code: "project_archived", detail: "The project is archived." });
        const replaced = await replaceWebhookSecret(em, {
          projectId: project.id,
          provider,
          secretSealed: seal(secret, deps.webhookSecretKey),
          issuedAt: now,
        });
        emitAudit(em, {
          action: "project.webhook_secret_issued",
          actor: callerActor(caller),
          targetId: project.id,
          teamId: project.teamId,
          organizationId: project.organizationId,
          outcome: "success",
          at: now,
          details: { provider, replaced_existing: String(replaced) },
        });
        return { projectId: project.id, replaced };
      });
      deps.wakeRelay();
      return create(IssueWebhookSecretResponseSchema, {
        issuedAt: timestampFromDate(now),
        projectId,
        provider,
        replacedExisting: replaced,
        secret,
      });
    },

    async getWebhookStatus(req, ctx) {
      const caller = requireCaller(ctx);
      const project = await readableProject(deps, caller, req.projectId, mayRead);
      enforce(mayUpdate(caller, project), ADMIN_ONLY);
      const row = await webhookSecretOf(deps.orm.em.fork(), project.id);
      return create(GetWebhookStatusResponseSchema, {
        configured: row !== null,
        projectId: project.id,
        ...(row ? { provider: row.provider } : {}),
      });
    },

    async resolveWebhookTargets(req, ctx) {
      requireService(ctx, WEBHOOK_INTAKE_CALLER);
      if (!isWebhookProvider(req.provider))
        throw ProblemError.validation([
          { path: "provider", message: `must be one of ${WEBHOOK_PROVIDERS.join(", ")}` },
        ]);
      const keys = new Set(req.repositoryUrls.map(repositoryKey).filter((k): k is string => k !== null));
      const names = [...new Set([...keys].map(repositoryName))];
      const candidates = await webhookCandidates(deps.orm.em.fork(), req.provider, names, MAX_WEBHOOK_TARGETS * 10);
      const targets = candidates.filter((c) => keys.has(repositoryKey(c.gitUrl) ?? "")).slice(0, MAX_WEBHOOK_TARGETS);
      return create(ResolveWebhookTargetsResponseSchema, {
        targets: targets.map((c) =>
          create(WebhookTargetSchema, {
            projectId: c.id,
            teamId: c.teamId,
            name: c.name,
            slug: c.slug,
            archived: c.archived,
            defaultBranch: c.defaultBranch ?? "",
            ...(c.secretSealed === null ? {} : { secret: open(c.secretSealed, deps.webhookSecretKey) }),
          }),
        ),
      });
    },
  });
}
