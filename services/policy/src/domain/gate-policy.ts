// Gate policies (docs/gate.md): a team's and its organization's default, each field set or inherited. The value in
// effect for a project is the team's when it sets the field, else the organization default's, else the deployment's
// GATE_* key (epss_threshold only), else the built-in default; `sources` says which, per field.
import type { FieldViolation } from "@sca/problem";
import { VEX_STATES, type VexState } from "@sca/vocabulary";

export const GATE_FIELDS = [
  "approval_required_statuses",
  "epss_threshold",
  "malicious_blocks",
  "reachable_critical_only",
] as const;
export type GateField = (typeof GATE_FIELDS)[number];

export const NAME_MAX = 255;

/** What a policy sets: an absent key inherits; epss_threshold null is "off here", not "inherit". */
export interface GateSettings {
  approval_required_statuses?: VexState[];
  epss_threshold?: number | null;
  malicious_blocks?: boolean;
  reachable_critical_only?: boolean;
}

export interface GatePolicyInput {
  name?: string | null;
  approvalRequiredStatuses?: string[];
  /** undefined: inherit; null: off. */
  epssThreshold?: number | null;
  maliciousBlocks?: boolean;
  reachableCriticalOnly?: boolean;
}

export type GatePolicyPlan =
  { ok: true; name: string | null; settings: GateSettings } | { ok: false; violations: FieldViolation[] };

/** Validates a request's fields into what is stored. Statuses are de-duplicated in the canonical order. */
export function planGatePolicy(input: GatePolicyInput): GatePolicyPlan {
  const v: FieldViolation[] = [];
  const settings: GateSettings = {};
  const name = input.name?.trim() ? input.name.trim() : null;
  if (name !== null && [...name].length > NAME_MAX) v.push({ path: "name", message: `at most ${NAME_MAX} characters` });
  if (input.approvalRequiredStatuses !== undefined) {
    input.approvalRequiredStatuses.forEach((s, i) => {
      if (!(VEX_STATES as readonly string[]).includes(s))
        v.push({ path: `approval_required_statuses[${i}]`, message: `one of ${VEX_STATES.join(", ")}` });
    });
    settings.approval_required_statuses = VEX_STATES.filter((s) => input.approvalRequiredStatuses!.includes(s));
  }
  if (input.epssThreshold !== undefined) {
    const t = input.epssThreshold;
    if (t !== null && !(Number.isFinite(t) && t >= 0 && t <= 1))
      v.push({ path: "epss_threshold", message: "a number between 0 and 1, or null" });
    settings.epss_threshold = t;
  }
  if (input.maliciousBlocks !== undefined) settings.malicious_blocks = input.maliciousBlocks;
  if (input.reachableCriticalOnly !== undefined) settings.reachable_critical_only = input.reachableCriticalOnly;
  return v.length ? { ok: false, violations: v } : { ok: true, name, settings };
}

/** The deployment's GATE_* keys. */
export interface GateDeployment {
  maliciousEnabled: boolean;
  epssThreshold: number | null;
  epssOnMissingData: "allow" | "block";
}

export type GateSource = "team" | "organization" | "deployment" | "default";

export interface EffectiveGateValues {
  approval_required_statuses: VexState[];
  epss_threshold: number | null;
  malicious_blocks: boolean;
  reachable_critical_only: boolean;
  sources: Record<GateField, GateSource>;
}

const BUILT_IN = {
  approval_required_statuses: [] as VexState[],
  epss_threshold: null,
  malicious_blocks: true,
  reachable_critical_only: false,
};

/** Each field from the nearest layer that sets it: team, organization, deployment (epss_threshold), built in. */
export function effectiveGateValues(
  team: GateSettings | null,
  organization: GateSettings | null,
  deployment: GateDeployment,
): EffectiveGateValues {
  const deploymentLayer: GateSettings =
    deployment.epssThreshold === null ? {} : { epss_threshold: deployment.epssThreshold };
  const layers: [GateSource, GateSettings | null][] = [
    ["team", team],
    ["organization", organization],
    ["deployment", deploymentLayer],
  ];
  const pick = <K extends GateField>(field: K): [NonNullable<GateSettings[K]> | null, GateSource] => {
    for (const [source, layer] of layers)
      if (layer && Object.hasOwn(layer, field) && layer[field] !== undefined) return [layer[field] ?? null, source];
    return [BUILT_IN[field] as NonNullable<GateSettings[K]> | null, "default"];
  };
  const [approval, approvalSource] = pick("approval_required_statuses");
  const [epss, epssSource] = pick("epss_threshold");
  const [malicious, maliciousSource] = pick("malicious_blocks");
  const [reachable, reachableSource] = pick("reachable_critical_only");
  return {
    approval_required_statuses: approval ?? [],
    epss_threshold: epss ?? null,
    malicious_blocks: malicious ?? true,
    reachable_critical_only: reachable ?? false,
    sources: {
      approval_required_statuses: approvalSource,
      epss_threshold: epssSource,
      malicious_blocks: maliciousSource,
      reachable_critical_only: reachableSource,
    },
  };
}

/** The deprecated string form of `sources`: `field=source` pairs in the fields' order, comma-separated. */
export function sourcesLegacy(sources: Record<GateField, GateSource>): string {
  return GATE_FIELDS.map((f) => `${f}=${sources[f]}`).join(",");
}
