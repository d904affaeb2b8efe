// Gate policies and gate results as the API shows them and takes them (the spec's Gate policy and Gate result
// resources; docs/gate.md).
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  EffectiveGatePolicy,
  GatePolicyFieldsSchema,
  GateComponent,
  GateFinding,
  GatePolicy,
  GateResult,
} from "@sca/proto/sca/policy/v1/gate_policies_pb.ts";
import type { GetEpssAvailabilityResponse } from "@sca/proto/sca/scannerrunner/v1/enrichment_feeds_pb.ts";
import { VEX_STATES, type VexState } from "@sca/vocabulary";
import { z } from "zod";

const FIELDS = ["approval_required_statuses", "epss_threshold", "malicious_blocks", "reachable_critical_only"] as const;
const SOURCES = ["team", "organization", "deployment", "default"] as const;

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

export const gatePolicyBody = z
  .strictObject({
    name: z.string().max(255).nullable().optional(),
    approval_required_statuses: z
      .array(z.enum(VEX_STATES))
      .max(VEX_STATES.length * 2)
      .nullable()
      .optional()
      .meta({ description: "Finding statuses one person may not reach alone; null or empty means none" }),
    epss_threshold: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .optional()
      .meta({ description: "0..1; null turns the EPSS check off here; left out inherits" }),
    malicious_blocks: z.boolean().optional().meta({ description: "Default true" }),
    reachable_critical_only: z.boolean().optional().meta({ description: "Default false" }),
  })
  .meta({ id: "GatePolicyInput" });

export type GatePolicyBody = z.output<typeof gatePolicyBody>;

/** The body as the contract's fields: left-out fields stay unset (they inherit). */
export function gatePolicyFieldsOf(body: GatePolicyBody): MessageInitShape<typeof GatePolicyFieldsSchema> {
  return {
    ...(body.name != null ? { name: body.name } : {}),
    ...(body.approval_required_statuses !== undefined
      ? { approvalRequiredStatuses: { statuses: body.approval_required_statuses ?? [] } }
      : {}),
    ...(body.epss_threshold === null ? { epssThresholdOff: true } : {}),
    ...(typeof body.epss_threshold === "number" ? { epssThreshold: body.epss_threshold } : {}),
    ...(body.malicious_blocks !== undefined ? { maliciousBlocks: body.malicious_blocks } : {}),
    ...(body.reachable_critical_only !== undefined ? { reachableCriticalOnly: body.reachable_critical_only } : {}),
  };
}

export const gatePolicySchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    team_id: z.uuid().nullable().meta({ description: "Null for an organization default" }),
    name: z.string().nullable(),
    approval_required_statuses: z.array(z.enum(VEX_STATES)).nullable(),
    epss_threshold: z.number().nullable(),
    malicious_blocks: z.boolean().nullable().meta({ description: "Null: inherited" }),
    reachable_critical_only: z.boolean().nullable().meta({ description: "Null: inherited" }),
    set_fields: z
      .array(z.enum(FIELDS))
      .meta({ description: "The fields this policy sets; the others inherit (organization, deployment, default)" }),
    version: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "GatePolicy" });

export function gatePolicyJson(p: GatePolicy): z.input<typeof gatePolicySchema> {
  const f = p.fields;
  return {
    id: p.id,
    organization_id: p.organizationId,
    team_id: p.teamId ?? null,
    name: p.name ?? null,
    approval_required_statuses: (f?.approvalRequiredStatuses?.statuses ?? null) as VexState[] | null,
    epss_threshold: f?.epssThreshold ?? null,
    malicious_blocks: f?.maliciousBlocks ?? null,
    reachable_critical_only: f?.reachableCriticalOnly ?? null,
    set_fields: p.setFields as (typeof FIELDS)[number][],
    version: p.version,
    created_at: iso(p.createdAt)!,
    updated_at: iso(p.updatedAt)!,
  };
}

const sourcesSchema = z.object({
  approval_required_statuses: z.enum(SOURCES),
  epss_threshold: z.enum(SOURCES),
  malicious_blocks: z.enum(SOURCES),
  reachable_critical_only: z.enum(SOURCES),
});

export const effectiveGatePolicySchema = z
  .object({
    id: z.uuid().nullable().meta({ description: "The nearest stored policy (team, else organization); null if none" }),
    organization_id: z.uuid().nullable(),
    team_id: z.uuid().nullable(),
    name: z.string().nullable(),
    project_id: z.uuid(),
    approval_required_statuses: z.array(z.enum(VEX_STATES)),
    epss_threshold: z.number().nullable(),
    malicious_blocks: z.boolean(),
    reachable_critical_only: z.boolean(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    epss_data_available: z.boolean(),
    epss_last_synced_at: z.string().nullable(),
    epss_refresh_enabled: z.boolean(),
    epss_scored_cves: z.number().int(),
    sources: sourcesSchema.meta({ description: "Where each value came from: team, organization, deployment, default" }),
    sources_legacy: z
      .string()
      .meta({ description: "Deprecated: `field=source` pairs, comma-separated", deprecated: true }),
    malicious_gate_enabled: z.boolean().meta({ description: "GATE_MALICIOUS_ENABLED" }),
    epss_on_missing_data: z.enum(["allow", "block"]).meta({ description: "GATE_EPSS_ON_MISSING_DATA" }),
  })
  .meta({ id: "EffectiveGatePolicy" });

export function effectiveGatePolicyJson(
  p: EffectiveGatePolicy,
  epss: GetEpssAvailabilityResponse,
): z.input<typeof effectiveGatePolicySchema> {
  const sources = Object.fromEntries(FIELDS.map((f) => [f, p.sources[f] ?? "default"])) as Record<
    (typeof FIELDS)[number],
    (typeof SOURCES)[number]
  >;
  return {
    id: p.id ?? null,
    organization_id: p.organizationId || null,
    team_id: p.teamId ?? null,
    name: p.name ?? null,
    project_id: p.projectId,
    approval_required_statuses: p.approvalRequiredStatuses as VexState[],
    epss_threshold: p.epssThreshold ?? null,
    malicious_blocks: p.maliciousBlocks,
    reachable_critical_only: p.reachableCriticalOnly,
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
    epss_data_available: epss.available,
    epss_last_synced_at: iso(epss.lastSyncedAt),
    epss_refresh_enabled: epss.refreshEnabled,
    epss_scored_cves: Number(epss.scoredCves),
    sources,
    sources_legacy: FIELDS.map((f) => `${f}=${sources[f]}`).join(","),
    malicious_gate_enabled: p.maliciousGateEnabled,
    epss_on_missing_data: p.epssOnMissingData as "allow" | "block",
  };
}

const gateFindingSchema = z
  .object({
    finding_id: z.uuid(),
    vulnerability_id: z.string(),
    severity: z.string(),
    epss_score: z.number().nullable(),
    status: z.string(),
    component_id: z.uuid(),
    component_name: z.string(),
    component_version: z.string().nullable(),
    purl: z.string().nullable(),
  })
  .meta({ id: "GateFinding" });

const gateComponentSchema = z
  .object({
    component_id: z.uuid(),
    name: z.string(),
    version: z.string().nullable(),
    purl: z.string().nullable(),
    license: z.string().nullable(),
    license_category: z.string().nullable(),
    malicious_state: z.string().nullable(),
  })
  .meta({ id: "GateComponent" });

const REASONS = [
  "no_scan",
  "critical_vulnerabilities",
  "forbidden_licenses",
  "epss_threshold",
  "epss_missing_data",
  "malicious_components",
] as const;

export const gateResultSchema = z
  .object({
    project_id: z.uuid(),
    scan_id: z.uuid().nullable().meta({ description: "The latest succeeded scan judged; null when none" }),
    scanned_at: z.string().nullable(),
    evaluated_at: z.string(),
    passed: z.boolean(),
    outcome: z.enum(["pass", "fail", "no_scan"]),
    reasons: z.array(
      z.object({
        code: z.enum(REASONS),
        message: z.string(),
        count: z.number().int(),
        findings: z.array(gateFindingSchema).meta({ description: "The first offending findings (at most 20)" }),
        components: z.array(gateComponentSchema).meta({ description: "The first offending components (at most 20)" }),
        truncated: z.boolean(),
      }),
    ),
    critical_count: z.number().int().meta({ description: "Open critical findings (VEX-closed ones excluded)" }),
    reachable_critical_only: z.boolean(),
    reachability_analysed: z.boolean(),
    reachable_critical_only_applied: z.boolean().meta({
      description:
        "Whether reachable_critical_only narrowed critical_count: only on a scan with reachability analysis (none " +
        "has it yet, so every open critical counts and this is false)",
    }),
    forbidden_license_count: z.number().int(),
    epss_threshold: z.number().nullable(),
    epss_gate_count: z.number().int().meta({ description: "Open findings at or above epss_threshold" }),
    epss_outcome: z.enum(["off", "pass", "fail", "missing_data_allowed", "missing_data_blocked"]),
    epss_scored_finding_count: z.number().int(),
    malicious_component_count: z.number().int(),
    malicious_gate_enforced: z.boolean().meta({ description: "false means the malicious check was not run" }),
    malicious_waived_count: z.number().int().meta({
      description: "Flagged components an active malicious waiver of the project lets pass (not counted above)",
    }),
    open_finding_count: z.number().int(),
    triaged_finding_count: z.number().int().meta({ description: "Findings closed by triage (they do not count)" }),
    approval_required_statuses: z.array(z.enum(VEX_STATES)),
    sources: sourcesSchema,
  })
  .meta({ id: "GateResult" });

const findingJson = (f: GateFinding) => ({
  finding_id: f.findingId,
  vulnerability_id: f.vulnerabilityId,
  severity: f.severity,
  epss_score: f.epssScore ?? null,
  status: f.status,
  component_id: f.componentId,
  component_name: f.componentName,
  component_version: f.componentVersion ?? null,
  purl: f.purl ?? null,
});

const componentJson = (c: GateComponent) => ({
  component_id: c.componentId,
  name: c.name,
  version: c.version ?? null,
  purl: c.purl ?? null,
  license: c.license ?? null,
  license_category: c.licenseCategory ?? null,
  malicious_state: c.maliciousState ?? null,
});

export function gateResultJson(r: GateResult): z.input<typeof gateResultSchema> {
  const policy = r.policy;
  return {
    project_id: r.projectId,
    scan_id: r.scanId ?? null,
    scanned_at: iso(r.scannedAt),
    evaluated_at: iso(r.evaluatedAt)!,
    passed: r.passed,
    outcome: r.outcome as "pass" | "fail" | "no_scan",
    reasons: r.reasons.map((x) => ({
      code: x.code as (typeof REASONS)[number],
      message: x.message,
      count: x.count,
      findings: x.findings.map(findingJson),
      components: x.components.map(componentJson),
      truncated: x.truncated,
    })),
    critical_count: r.criticalCount,
    reachable_critical_only: r.reachableCriticalOnly,
    reachability_analysed: r.reachabilityAnalysed,
    reachable_critical_only_applied: r.reachableCriticalOnlyApplied,
    forbidden_license_count: r.forbiddenLicenseCount,
    epss_threshold: r.epssThreshold ?? null,
    epss_gate_count: r.epssGateCount,
    epss_outcome: r.epssOutcome as "off" | "pass" | "fail" | "missing_data_allowed" | "missing_data_blocked",
    epss_scored_finding_count: r.epssScoredFindingCount,
    malicious_component_count: r.maliciousComponentCount,
    malicious_gate_enforced: r.maliciousGateEnforced,
    malicious_waived_count: r.maliciousWaivedCount,
    open_finding_count: r.openFindingCount,
    triaged_finding_count: r.triagedFindingCount,
    approval_required_statuses: (policy?.approvalRequiredStatuses ?? []) as VexState[],
    sources: Object.fromEntries(FIELDS.map((f) => [f, policy?.sources[f] ?? "default"])) as z.input<
      typeof sourcesSchema
    >,
  };
}
