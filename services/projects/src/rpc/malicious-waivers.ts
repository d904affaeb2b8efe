// MaliciousWaiverService (docs/enrichment-feeds.md, "Waivers"): a team_admin waives a flagged package version of a
// project for at most MALICIOUS_WAIVE_MAX_DAYS; the gate's facts leave it out while it is active. Each grant and
// revocation is audited through the outbox in its transaction.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import {
  CreateMaliciousWaiverResponseSchema,
  ListMaliciousWaiversResponseSchema,
  MaliciousWaiverSchema,
  MaliciousWaiverService,
  RevokeMaliciousWaiverResponseSchema,
} from "@sca/proto/sca/projects/v1/malicious_waivers_pb.ts";
import { requireCaller } from "@sca/rpc";
import { waiverExpiry, waiverState, waiverViolations } from "../domain/malicious-waiver.ts";
import { mayRead, mayWaiveMalicious } from "../domain/project-access.ts";
import { isUuid } from "../domain/project-fields.ts";
import { emitAudit } from "../events/project-events.ts";
import { insertWaiver, projectWaivers, revokeWaiver, type WaiverRow } from "../store/malicious-waivers.ts";
import type { ProjectRow } from "../store/projects.ts";
import { enforce, readableProject } from "./project-lookup.ts";

export interface MaliciousWaiverDeps {
  orm: MikroORM;
  /** MALICIOUS_WAIVE_MAX_DAYS. */
  maxDays: number;
  wakeRelay: () => void;
}

const REFUSAL = "Waiving a malicious package needs the team_admin role on the project's team.";

function waiverView(w: WaiverRow, now: Date) {
  return create(MaliciousWaiverSchema, {
    id: w.id,
    projectId: w.projectId,
    purl: w.purl,
    reason: w.reason,
    ...(w.createdByUserId ? { createdByUserId: w.createdByUserId } : {}),
    createdAt: timestampFromDate(w.createdAt),
    expiresAt: timestampFromDate(w.expiresAt),
    ...(w.revokedAt ? { revokedAt: timestampFromDate(w.revokedAt) } : {}),
    state: waiverState(w, now),
  });
}

function auditWaiver(
  em: Parameters<typeof emitAudit>[0],
  action: string,
  caller: ReturnType<typeof requireCaller>,
  project: ProjectRow,
  w: WaiverRow,
  at: Date,
): void {
  emitAudit(em, {
    action,
    actor: callerActor(caller),
    targetTable: "malicious_waivers",
    targetId: w.id,
    teamId: project.teamId,
    organizationId: project.organizationId,
    outcome: "success",
    at,
    details: { project_id: project.id, purl: w.purl, expires_at: w.expiresAt.toISOString() },
  });
}

export function registerMaliciousWaiverService(router: ConnectRouter, deps: MaliciousWaiverDeps): void {
  router.service(MaliciousWaiverService, {
    async createMaliciousWaiver(req, ctx) {
      const caller = requireCaller(ctx);
      const project = await readableProject(deps, caller, req.projectId, mayRead);
      enforce(mayWaiveMalicious(caller, project), REFUSAL);
      const violations = waiverViolations(req, deps.maxDays);
      if (violations.length) throw ProblemError.validation(violations);
      const now = new Date();
      const waiver = await deps.orm.em.fork().transactional(async (em) => {
        const w = await insertWaiver(em, {
          projectId: project.id,
          purl: req.purl.trim(),
          reason: req.reason.trim(),
          createdByUserId: caller.user_id,
          createdAt: now,
          expiresAt: waiverExpiry(now, req.days),
        });
        auditWaiver(em, "malicious_waiver.created", caller, project, w, now);
        return w;
      });
      deps.wakeRelay();
      return create(CreateMaliciousWaiverResponseSchema, { waiver: waiverView(waiver, now) });
    },

    async listMaliciousWaivers(req, ctx) {
      const caller = requireCaller(ctx);
      const project = await readableProject(deps, caller, req.projectId, mayRead);
      const now = new Date();
      const rows = await projectWaivers(deps.orm.em.fork(), project.id, now, req.includeInactive);
      return create(ListMaliciousWaiversResponseSchema, {
        items: rows.map((w) => waiverView(w, now)),
        total: rows.length,
      });
    },

    async revokeMaliciousWaiver(req, ctx) {
      const caller = requireCaller(ctx);
      const project = await readableProject(deps, caller, req.projectId, mayRead);
      enforce(mayWaiveMalicious(caller, project), REFUSAL);
      if (!isUuid(req.waiverId)) throw ProblemError.notFound("No such waiver.");
      const now = new Date();
      await deps.orm.em.fork().transactional(async (em) => {
        const w = await revokeWaiver(em, project.id, req.waiverId.toLowerCase(), now);
        if (!w) throw ProblemError.notFound("No such waiver.");
        if (w.revokedAt?.getTime() === now.getTime())
          auditWaiver(em, "malicious_waiver.revoked", caller, project, w, now);
      });
      deps.wakeRelay();
      return create(RevokeMaliciousWaiverResponseSchema, {});
    },
  });
}
