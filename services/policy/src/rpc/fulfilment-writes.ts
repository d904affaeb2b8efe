// Recording an obligation's fulfilment (PutFulfilment) and taking it back (DeleteFulfilment): each change runs in one
// transaction on the locked row with its audit event.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { EntityManager } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { UUID } from "@sca/ids";
import { ProblemError } from "@sca/problem";
import {
  DeleteFulfilmentResponseSchema,
  PutFulfilmentResponseSchema,
} from "@sca/proto/sca/policy/v1/obligations_pb.ts";
import { requireCaller, type Caller } from "@sca/rpc";
import { mayFulfil, planFulfilment } from "../domain/obligation-fulfilment.ts";
import { emitAudit } from "../events/policy-events.ts";
import {
  deleteFulfilment,
  insertFulfilment,
  lockFulfilment,
  updateFulfilment,
  type ObligationFulfilmentRow,
} from "../store/obligation-fulfilments.ts";
import type { ObligationDeps, ObligationHandlers } from "./obligation-deps.ts";
import { derive, noSuchObligation, obligationOf, type Derived } from "./obligation-derivation.ts";
import { fulfilmentView } from "./obligation-views.ts";

const AUDIT_TABLE = "obligation_fulfilments";

function requireFulfiller(caller: Caller, d: Derived): void {
  if (!mayFulfil(caller, d.teamId))
    throw ProblemError.forbidden(
      "Recording an obligation's fulfilment needs the developer role on the project's team.",
    );
}

const versionMismatch = (expected: number, current: ObligationFulfilmentRow | null) =>
  new ProblemError({
    status: 412,
    code: "version_mismatch",
    detail: current
      ? `If-Match names version ${expected}; the fulfilment is at version ${current.version}.`
      : `If-Match names version ${expected}; the obligation has no fulfilment yet.`,
    extensions: { current_version: current ? current.version : null },
    ...(current ? { headers: { ETag: `"${current.version}"` } } : {}),
  });

export function fulfilmentWriteHandlers(
  deps: ObligationDeps,
): ObligationHandlers<"putFulfilment" | "deleteFulfilment"> {
  return {
    async putFulfilment(req, ctx) {
      const caller = requireCaller(ctx);
      const plan = planFulfilment({ note: req.note, evidenceUrl: req.evidenceUrl });
      if (!plan.ok) throw ProblemError.validation(plan.violations);
      const d = await derive(deps, caller, req.projectId);
      requireFulfiller(caller, d);
      const o = obligationOf(d, req.obligationId);
      const attempt = () =>
        deps.orm.em.fork().transactional(async (em: EntityManager) => {
          const now = new Date();
          const current = await lockFulfilment(em, d.projectId, o.id);
          if (req.expectedVersion !== undefined && current?.version !== req.expectedVersion)
            throw versionMismatch(req.expectedVersion, current);
          const audit = (action: string, targetId: string, version: number) =>
            emitAudit(em, {
              action,
              actor: callerActor(caller),
              targetTable: AUDIT_TABLE,
              targetId,
              teamId: d.teamId,
              organizationId: d.organizationId,
              outcome: "success",
              at: now,
              // Which obligation and version, never the note (it may say anything).
              details: {
                project_id: d.projectId,
                obligation_id: o.id,
                obligation: o.obligation,
                license: o.license,
                version: String(version),
              },
            });
          const columns = { ...plan.fields, fulfilledByUserId: caller.user_id };
          if (!current) {
            const row = await insertFulfilment(em, {
              id: randomUUID(),
              projectId: d.projectId,
              obligationId: o.id,
              obligation: o.obligation,
              license: o.license,
              ...columns,
              createdAt: now,
            });
            audit("obligation_fulfilment.created", row.id, row.version);
            return { row, created: true, changed: true };
          }
          if (current.note === plan.fields.note && current.evidenceUrl === plan.fields.evidenceUrl)
            return { row: current, created: false, changed: false };
          const row = await updateFulfilment(em, current, { ...columns, updatedAt: now });
          audit("obligation_fulfilment.updated", row.id, row.version);
          return { row, created: false, changed: true };
        });
      let answer;
      try {
        answer = await attempt();
      } catch (err) {
        // Two first PUTs at once: the loser sees the winner's row on the second try.
        if (!(err instanceof UniqueConstraintViolationException)) throw err;
        answer = await attempt();
      }
      if (answer.changed) deps.wakeRelay();
      return create(PutFulfilmentResponseSchema, {
        fulfilment: fulfilmentView(answer.row, true),
        created: answer.created,
      });
    },

    async deleteFulfilment(req, ctx) {
      const caller = requireCaller(ctx);
      const d = await derive(deps, caller, req.projectId);
      requireFulfiller(caller, d);
      if (!UUID.test(req.obligationId)) throw noSuchObligation();
      const obligationId = req.obligationId.toLowerCase();
      const deleted = await deps.orm.em.fork().transactional(async (em: EntityManager) => {
        const current = await lockFulfilment(em, d.projectId, obligationId);
        if (!current) {
          if (!d.obligations.some((o) => o.id === obligationId)) throw noSuchObligation();
          return false;
        }
        await deleteFulfilment(em, current.id);
        emitAudit(em, {
          action: "obligation_fulfilment.deleted",
          actor: callerActor(caller),
          targetTable: AUDIT_TABLE,
          targetId: current.id,
          teamId: d.teamId,
          organizationId: d.organizationId,
          outcome: "success",
          at: new Date(),
          details: {
            project_id: d.projectId,
            obligation_id: obligationId,
            obligation: current.obligation,
            license: current.license,
            version: String(current.version),
          },
        });
        return true;
      });
      if (deleted) deps.wakeRelay();
      return create(DeleteFulfilmentResponseSchema, { deleted });
    },
  };
}
