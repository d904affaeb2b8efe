// The gate evaluated once after each scan (docs/gate.md, "Evaluated after each scan"): the scan-orchestrator's
// ScanStateChanged into succeeded comes after the scanner-runner recorded the scan's findings (RecordScanMatches runs
// before the attempt is reported finished), so policy judges the project's newest snapshot then, with the policy in
// effect, exactly as GET /v1/projects/{id}/gate-result would. A failing verdict is recorded per scan and GateFailed
// written to the outbox in the same transaction (idempotent consumer): once per scan, none when it passes. A scan
// that landed superseded, or whose snapshot is no longer the newest, is not judged (the newer scan's own event is).
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { EntityManager } from "@mikro-orm/postgresql";
import { enqueue, topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import { GateFailedSchema, GateFailureReasonSchema } from "@sca/proto/sca/events/v1/gate_pb.ts";
import { ScanStateChangedSchema, type ScanStateChanged } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { ANONYMOUS, type Caller } from "@sca/rpc";
import type { GateSubject, ProjectGateFacts } from "../clients/gate-facts.ts";
import { effectiveGateValues, type GateDeployment } from "../domain/gate-policy.ts";
import { gateVerdict } from "../domain/gate-verdict.ts";
import { GATE_ITEM_LIMIT } from "../rpc/gate-policy-service.ts";
import { gateFactsOf } from "../rpc/gate-policy-views.ts";
import { recordGateFailure } from "../store/gate-scan-failures.ts";
import { gatePoliciesFor, settingsOf } from "../store/gate-policies.ts";

export const GATE_EVALUATION_GROUP = "policy.gate-evaluation";
export const scanStates = topicContract(TOPICS.domainEvents, ScanStateChangedSchema);
export const gateEvents = topicContract(TOPICS.domainEvents, GateFailedSchema);

/** Policy itself, reading the facts of a scan no person asked about (projects lets this caller read any project). */
export const GATE_EVALUATOR: Caller = { ...ANONYMOUS, kind: "service", service: "policy" };

export interface GateEvaluationDeps {
  projects: ProjectGateFacts;
  deployment: GateDeployment;
}

async function subjectOrNull(deps: GateEvaluationDeps, projectId: string): Promise<GateSubject | null> {
  try {
    return await deps.projects.subject(GATE_EVALUATOR, projectId);
  } catch (err) {
    if (ConnectError.from(err).code === Code.NotFound) return null;
    throw err;
  }
}

export function gateEvaluationHandler(deps: GateEvaluationDeps) {
  return async (em: EntityManager, event: ScanStateChanged, meta: EventMeta): Promise<void> => {
    if (event.status !== "succeeded" || event.previousStatus === "succeeded" || event.landedSuperseded) return;
    const subject = await subjectOrNull(deps, event.projectId);
    // A project projects does not know (removed since, or never ingested): nothing to judge, and nothing to retry.
    if (!subject) return;
    const { team, organization } = await gatePoliciesFor(em, subject.teamId, subject.organizationId);
    const values = effectiveGateValues(
      team && settingsOf(team),
      organization && settingsOf(organization),
      deps.deployment,
    );
    const answer = await deps.projects.facts(GATE_EVALUATOR, subject.projectId, {
      epssThreshold: values.epss_threshold,
      reachableCriticalOnly: values.reachable_critical_only,
      itemLimit: GATE_ITEM_LIMIT,
    });
    if (answer.scanId !== event.scanId) return;
    const verdict = gateVerdict(gateFactsOf(answer), values, deps.deployment);
    if (verdict.passed) return;
    const at = meta.timestamp;
    const recorded = await recordGateFailure(em, {
      scanId: event.scanId,
      projectId: subject.projectId,
      reasonCodes: verdict.reasons.map((r) => r.code),
      at,
    });
    if (!recorded) return;
    enqueue(
      em,
      gateEvents,
      subject.projectId,
      create(GateFailedSchema, {
        occurredAt: timestampFromDate(at),
        projectId: subject.projectId,
        teamId: subject.teamId,
        organizationId: subject.organizationId ?? "",
        scanId: event.scanId,
        reasons: verdict.reasons.map((r) =>
          create(GateFailureReasonSchema, { code: r.code, message: r.message, count: r.count }),
        ),
      }),
    );
  };
}
