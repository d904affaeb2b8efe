// The triage words of a vulnerability finding: CycloneDX 1.6's impact analysis (vulnerabilities[].analysis). Projects
// keeps the triage and its moves (services/projects/src/domain/vex-status.ts), a gate policy names the states a second
// person confirms, and the gateway shows them.

export const VEX_STATES = [
  "in_triage",
  "exploitable",
  "false_positive",
  "not_affected",
  "resolved",
  "resolved_with_pedigree",
] as const;
export type VexState = (typeof VEX_STATES)[number];

export const VEX_JUSTIFICATIONS = [
  "code_not_present",
  "code_not_reachable",
  "requires_configuration",
  "requires_dependency",
  "requires_environment",
  "protected_by_compiler",
  "protected_at_runtime",
  "protected_at_perimeter",
  "protected_by_mitigating_control",
] as const;
export type VexJustification = (typeof VEX_JUSTIFICATIONS)[number];

export const VEX_RESPONSES = ["can_not_fix", "will_not_fix", "update", "rollback", "workaround_available"] as const;
export type VexResponse = (typeof VEX_RESPONSES)[number];
