// The gate evaluated after each scan and after changes no scan made (docs/gate.md, "Evaluated after each scan"): the
// scan-orchestrator's ScanStateChanged into succeeded comes after the scanner-runner recorded the scan's findings
// (RecordScanMatches runs before the attempt is reported finished); projects' FindingsChanged (a re-match added
// findings), MaliciousComponentsFlagged (a snapshot refresh) and InventoryLicensesCategorised (registry licenses,
// perhaps arriving after the scan succeeded, categorised) come after their changes committed. Which events
// judge is domain/gate-triggers.ts. Policy judges the project's newest snapshot, with the policy in effect, exactly
// as GET /v1/projects/{id}/gate-result would. A failing verdict is recorded per scan and GateFailed written to the
// outbox in the same transaction (idempotent consumer): once per scan whatever made it fail, none when it passes,
// except that late registry licenses making a told failure pass write GatePassed (once) and re-arm the record. A
// snapshot that is no longer the newest is not judged (the newer scan's own event is).
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { EntityManager } from "@mikro-orm/postgresql";
import { enqueue, topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import { GateFailedSchema, GateFailureReasonSchema, GatePassedSchema } from "@sca/proto/sca/events/v1/gate_pb.ts";
import {
  FindingsChangedSchema,
  InventoryLicensesCategorisedSchema,
  MaliciousComponentsFlaggedSchema,
  type FindingsChanged,
  type InventoryLicensesCategorised,
  type MaliciousComponentsFlagged,
} from "@sca/proto/sca/events/v1/projects_pb.ts";
import { ScanStateChangedSchema, type ScanStateChanged } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { ANONYMOUS, type Caller } from "@sca/rpc";
import type { ProjectGateFacts } from "../clients/gate-facts.ts";
import type { GateSubject } from "../clients/gate-subject-hints.ts";
import { effectiveGateValues, type GateDeployment } from "../domain/gate-policy.ts";
import { gateTriggerOf, type GateTriggerEvent } from "../domain/gate-triggers.ts";
import { gateVerdict } from "../domain/gate-verdict.ts";
import { GATE_ITEM_LIMIT } from "../rpc/gate-policy-service.ts";
import { gateFactsOf } from "../rpc/gate-policy-views.ts";
import { clearGateFailure, recordGateFailure } from "../store/gate-scan-failures.ts";
import { gatePoliciesFor, settingsOf } from "../store/gate-policies.ts";

export const GATE_EVALUATION_GROUP = "policy.gate-evaluation";
export const gateTriggers = topicContract(
  TOPICS.domainEvents,
  ScanStateChangedSchema,
  FindingsChangedSchema,
  MaliciousComponentsFlaggedSchema,
  InventoryLicensesCategorisedSchema,
);
type GateTriggerMessage =
  ScanStateChanged | FindingsChanged | MaliciousComponentsFlagged | InventoryLicensesCategorised;
export const gateEvents = topicContract(TOPICS.domainEvents, GateFailedSchema, GatePassedSchema);

/** Policy itself, reading the facts of a scan no person asked about (projects lets this caller read any project). */
export const GATE_EVALUATOR: Caller = { ...ANONYMOUS, kind: "service", service: "policy" };

export interface GateEvaluationDeps {
  projects: ProjectGateFacts;
  deployment: GateDeployment;
}

function triggerEventOf(m: GateTriggerMessage): GateTriggerEvent {
  const ids = { projectId: m.projectId, scanId: m.scanId };
  switch (m.$typeName) {
    case "sca.events.v1.ScanStateChanged":
      return {
        ...ids,
        event: "scan_state_changed",
        status: m.status,
        previousStatus: m.previousStatus,
        landedSuperseded: m.landedSuperseded,
      };
    case "sca.events.v1.FindingsChanged":
      return { ...ids, event: "findings_changed", addedCount: m.addedCount };
    case "sca.events.v1.MaliciousComponentsFlagged":
      return { ...ids, event: "malicious_components_flagged", cause: m.cause, flaggedCount: m.flaggedCount };
    case "sca.events.v1.InventoryLicensesCategorised":
      return { ...ids, event: "inventory_licenses_categorised" };
  }
}

async function subjectOrNull(deps: GateEvaluationDeps, projectId: string): Promise<GateSubject | null> {
  try {
    return await deps.projects.subject(GATE_EVALUATOR, projectId);
  } catch (err) {
    if (ConnectError.from(err).code === Code.NotFound) return null;
    throw err;
  }
}

/**
 * Whether the event may judge the gate (the group's `acts`): a scan's other moves (queued, running, failed) are passed
 * by before any database work.
 */
export const judgesGate = (message: GateTriggerMessage): boolean => gateTriggerOf(triggerEventOf(message)) !== null;

export function gateEvaluationHandler(deps: GateEvaluationDeps) {
  return async (em: EntityManager, message: GateTriggerMessage, meta: EventMeta): Promise<void> => {
    const trigger = gateTriggerOf(triggerEventOf(message));
    if (!trigger) return;
    const subject = await subjectOrNull(deps, trigger.projectId);
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
    if (answer.scanId !== trigger.scanId) return;
    const verdict = gateVerdict(gateFactsOf(answer), values, deps.deployment);
    const at = meta.timestamp;
    if (verdict.passed) {
      // Late licenses are the one change no person made that can turn a told failure into a pass: told once.
      if (trigger.cause === "license_update" && (await clearGateFailure(em, trigger.scanId, at)))
        enqueue(
          em,
          gateEvents,
          subject.projectId,
          create(GatePassedSchema, {
            occurredAt: timestampFromDate(at),
            projectId: subject.projectId,
            teamId: subject.teamId,
            organizationId: subject.organizationId ?? "",
            scanId: trigger.scanId,
            cause: trigger.cause,
          }),
        );
      return;
    }
    const recorded = await recordGateFailure(em, {
      scanId: trigger.scanId,
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
        scanId: trigger.scanId,
        cause: trigger.cause,
        reasons: verdict.reasons.map((r) =>
          create(GateFailureReasonSchema, { code: r.code, message: r.message, count: r.count }),
        ),
      }),
    );
  };
}
