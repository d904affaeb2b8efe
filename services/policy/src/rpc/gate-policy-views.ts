// Gate policies and gate results as GatePolicyService answers them (proto/sca/policy/v1/gate_policies.proto).
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  EffectiveGatePolicySchema,
  GatePolicySchema,
  GateResultSchema,
  type EffectiveGatePolicy,
  type GatePolicy,
  type GatePolicyFields,
  type GateResult,
} from "@sca/proto/sca/policy/v1/gate_policies_pb.ts";
import type { GetGateFactsResponse } from "@sca/proto/sca/projects/v1/gate_facts_pb.ts";
import {
  GATE_FIELDS,
  type EffectiveGateValues,
  type GateDeployment,
  type GatePolicyInput,
} from "../domain/gate-policy.ts";
import type { GateFacts, GateVerdict } from "../domain/gate-verdict.ts";
import type { GateSubject } from "../clients/gate-subject-hints.ts";
import { settingsOf, type GatePolicyRow } from "../store/gate-policies.ts";

export function gatePolicyInputOf(fields: GatePolicyFields | undefined): GatePolicyInput {
  if (!fields) return {};
  return {
    ...(fields.name !== undefined ? { name: fields.name } : {}),
    ...(fields.approvalRequiredStatuses ? { approvalRequiredStatuses: fields.approvalRequiredStatuses.statuses } : {}),
    ...(fields.epssThresholdOff
      ? { epssThreshold: null }
      : fields.epssThreshold !== undefined
        ? { epssThreshold: fields.epssThreshold }
        : {}),
    ...(fields.maliciousBlocks !== undefined ? { maliciousBlocks: fields.maliciousBlocks } : {}),
    ...(fields.reachableCriticalOnly !== undefined ? { reachableCriticalOnly: fields.reachableCriticalOnly } : {}),
  };
}

export function gatePolicyView(row: GatePolicyRow): GatePolicy {
  const settings = settingsOf(row);
  return create(GatePolicySchema, {
    id: row.id,
    organizationId: row.organizationId,
    ...(row.teamId ? { teamId: row.teamId } : {}),
    ...(row.name !== null ? { name: row.name } : {}),
    fields: {
      ...(settings.approval_required_statuses
        ? { approvalRequiredStatuses: { statuses: settings.approval_required_statuses } }
        : {}),
      ...(settings.epss_threshold !== undefined && settings.epss_threshold !== null
        ? { epssThreshold: settings.epss_threshold }
        : {}),
      epssThresholdOff: settings.epss_threshold === null,
      ...(settings.malicious_blocks !== undefined ? { maliciousBlocks: settings.malicious_blocks } : {}),
      ...(settings.reachable_critical_only !== undefined
        ? { reachableCriticalOnly: settings.reachable_critical_only }
        : {}),
    },
    setFields: GATE_FIELDS.filter((f) => Object.hasOwn(settings, f)),
    version: row.version,
    createdAt: timestampFromDate(row.createdAt),
    updatedAt: timestampFromDate(row.updatedAt),
  });
}

export function effectiveGatePolicyView(
  subject: GateSubject,
  nearest: GatePolicyRow | null,
  values: EffectiveGateValues,
  deployment: GateDeployment,
): EffectiveGatePolicy {
  return create(EffectiveGatePolicySchema, {
    projectId: subject.projectId,
    organizationId: subject.organizationId ?? "",
    ...(nearest
      ? {
          id: nearest.id,
          ...(nearest.teamId ? { teamId: nearest.teamId } : {}),
          ...(nearest.name !== null ? { name: nearest.name } : {}),
          createdAt: timestampFromDate(nearest.createdAt),
          updatedAt: timestampFromDate(nearest.updatedAt),
        }
      : {}),
    approvalRequiredStatuses: values.approval_required_statuses,
    ...(values.epss_threshold !== null ? { epssThreshold: values.epss_threshold } : {}),
    maliciousBlocks: values.malicious_blocks,
    reachableCriticalOnly: values.reachable_critical_only,
    sources: values.sources,
    maliciousGateEnabled: deployment.maliciousEnabled,
    epssOnMissingData: deployment.epssOnMissingData,
  });
}

/** A message of projects' as a plain object (its fields, without its type name). */
const plain = <T extends { $typeName: string }>({ $typeName: _, ...fields }: T): Omit<T, "$typeName"> => fields;

/** The facts as the pure verdict reads them. */
export function gateFactsOf(answer: GetGateFactsResponse): GateFacts {
  return {
    ...(answer.scanId !== undefined ? { scanId: answer.scanId } : {}),
    reachabilityAnalysed: answer.reachabilityAnalysed,
    openFindingCount: answer.openFindingCount,
    triagedFindingCount: answer.triagedFindingCount,
    criticalCount: answer.criticalCount,
    criticalFindings: answer.criticalFindings.map(plain),
    epssScoredCount: answer.epssScoredCount,
    epssAtOrAboveCount: answer.epssAtOrAboveCount,
    epssFindings: answer.epssFindings.map(plain),
    forbiddenLicenseCount: answer.forbiddenLicenseCount,
    forbiddenComponents: answer.forbiddenComponents.map(plain),
    maliciousCount: answer.maliciousCount,
    maliciousComponents: answer.maliciousComponents.map(plain),
  };
}

export function gateResultView(
  answer: GetGateFactsResponse,
  facts: GateFacts,
  verdict: GateVerdict,
  policy: EffectiveGatePolicy,
  values: EffectiveGateValues,
  evaluatedAt: Date,
): GateResult {
  return create(GateResultSchema, {
    projectId: policy.projectId,
    ...(answer.scanId !== undefined ? { scanId: answer.scanId } : {}),
    ...(answer.scannedAt ? { scannedAt: answer.scannedAt } : {}),
    evaluatedAt: timestampFromDate(evaluatedAt),
    passed: verdict.passed,
    outcome: verdict.outcome,
    reasons: verdict.reasons.map((r) => ({
      code: r.code,
      message: r.message,
      count: r.count,
      findings: r.findings,
      components: r.components,
      truncated: r.truncated,
    })),
    criticalCount: facts.criticalCount,
    reachableCriticalOnly: values.reachable_critical_only,
    reachabilityAnalysed: facts.reachabilityAnalysed,
    reachableCriticalOnlyApplied: verdict.reachableCriticalOnlyApplied,
    forbiddenLicenseCount: facts.forbiddenLicenseCount,
    ...(values.epss_threshold !== null ? { epssThreshold: values.epss_threshold } : {}),
    epssGateCount: values.epss_threshold === null ? 0 : facts.epssAtOrAboveCount,
    epssOutcome: verdict.epssOutcome,
    epssScoredFindingCount: facts.epssScoredCount,
    maliciousComponentCount: verdict.maliciousComponentCount,
    maliciousWaivedCount: answer.maliciousWaivedCount,
    maliciousGateEnforced: verdict.maliciousGateEnforced,
    openFindingCount: facts.openFindingCount,
    triagedFindingCount: facts.triagedFindingCount,
    policy,
  });
}
