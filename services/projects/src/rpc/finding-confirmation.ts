// The second person of a finding's status change (docs/findings.md, "Statuses a second person confirms"): confirming
// applies the change waiting on the finding's triage; declining drops it. Both need If-Match on the finding's version,
// run on the locked triage row and are audited through the outbox in their transaction.
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import {
  ConfirmFindingStatusResponseSchema,
  DeclineFindingStatusResponseSchema,
} from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { requireCaller } from "@sca/rpc";
import { mayTriage } from "../domain/project-access.ts";
import { confirmationRefusal } from "../domain/triage-confirmation.ts";
import { isVexState, mayMove } from "../domain/vex-status.ts";
import { emitAudit } from "../events/project-events.ts";
import { findingById } from "../store/findings/reads.ts";
import { dropPendingTriage, lockTriage, writeTriage } from "../store/findings/triage.ts";
import { findingView } from "./finding-views.ts";
import {
  changedBy,
  findingNotFound,
  readableFinding,
  versionCheck,
  type FindingHandlers,
  type FindingServiceDeps,
} from "./vulnerability-findings.ts";
import { refreshProjectFigures } from "../store/portfolio/figures.ts";

const nothingPending = (status: string) =>
  new ProblemError({
    status: 409,
    code: "no_pending_status_change",
    detail: "No status change of this finding is waiting for confirmation.",
    extensions: { current_status: status },
  });

export function findingConfirmationHandlers(
  deps: FindingServiceDeps,
): FindingHandlers<"confirmFindingStatus" | "declineFindingStatus"> {
  async function change(ctx: HandlerContext, findingId: string, expectedVersion: number, confirming: boolean) {
    const caller = requireCaller(ctx);
    const { finding, project } = await readableFinding(deps, caller, findingId);
    if (!mayTriage(caller, project).ok)
      throw ProblemError.forbidden("Confirming or declining a finding's status needs the developer role or above.");
    const key = {
      projectId: finding.projectId,
      componentKey: finding.componentKey,
      vulnerabilityId: finding.vulnerabilityId,
    };
    await deps.orm.em.fork().transactional(async (em) => {
      const current = await lockTriage(em, key);
      if (!current) throw findingNotFound();
      versionCheck(expectedVersion, current.version);
      const pending = current.pending;
      if (!pending) throw nothingPending(current.status);
      const from = isVexState(current.status) ? current.status : "in_triage";
      if (confirming) {
        const refusal = confirmationRefusal(caller, pending.by);
        if (refusal)
          throw new ProblemError({
            status: 403,
            code: "second_person_required",
            detail:
              refusal === "same_person"
                ? "The change was asked for by you: a different person confirms it."
                : "A status change is confirmed by a person, not an API key.",
          });
        // A direct change drops what was pending, so the move is still the one that was asked for; checked anyway.
        if (!mayMove(from, pending.status)) throw nothingPending(current.status);
      }
      const version = confirming
        ? await writeTriage(em, current, pending, changedBy(caller))
        : await dropPendingTriage(em, current);
      emitAudit(em, {
        action: confirming ? "vulnerability_finding.status_confirmed" : "vulnerability_finding.status_change_declined",
        actor: callerActor(caller),
        targetTable: "finding_triage",
        targetId: finding.id,
        teamId: project.teamId,
        organizationId: project.organizationId,
        outcome: "success",
        at: new Date(),
        details: {
          project_id: project.id,
          vulnerability_id: finding.vulnerabilityId,
          component_key: finding.componentKey,
          from,
          to: pending.status,
          requested_by: pending.by ?? "",
          version: String(version),
        },
      });
      await refreshProjectFigures(em, [project.id]);
    });
    deps.wakeRelay();
    return findingView((await findingById(deps.orm.em.fork(), finding.id))!);
  }

  return {
    async confirmFindingStatus(req, ctx) {
      const finding = await change(ctx, req.findingId, req.expectedVersion, true);
      return create(ConfirmFindingStatusResponseSchema, { finding });
    },
    async declineFindingStatus(req, ctx) {
      const finding = await change(ctx, req.findingId, req.expectedVersion, false);
      return create(DeclineFindingStatusResponseSchema, { finding });
    },
  };
}
