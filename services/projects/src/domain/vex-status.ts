// The triage of a vulnerability finding: CycloneDX 1.6's impact analysis (vulnerabilities[].analysis): a state, a
// justification (only with not_affected), responses and a free detail. The spec shows neither the values nor the
// moves; these are ours (docs/findings.md, "VEX states and moves"): the words in @sca/vocabulary (the policy's gate
// and the gateway name them too), the rules here.
import type { FieldViolation } from "@sca/problem";
import {
  VEX_JUSTIFICATIONS,
  VEX_RESPONSES,
  VEX_STATES,
  type VexJustification,
  type VexResponse,
  type VexState,
} from "@sca/vocabulary";

/** A new finding's state: nobody has looked at it yet. */
export const INITIAL_STATE: VexState = "in_triage";
export const DETAIL_MAX = 10_000;

/**
 * Where each state may go. Triage is a judgement that can be revised, so every state may go back to in_triage and
 * to exploitable (new information); a closing state (false_positive, not_affected, resolved, resolved_with_pedigree)
 * is reached from in_triage or exploitable, never straight from another closing state: changing the reason a finding
 * is closed goes through reopening it, so the history says so. Staying in a state (to change its justification,
 * responses or detail) is allowed.
 */
export const VEX_MOVES: Record<VexState, readonly VexState[]> = {
  in_triage: VEX_STATES,
  exploitable: VEX_STATES,
  false_positive: ["false_positive", "in_triage", "exploitable"],
  not_affected: ["not_affected", "in_triage", "exploitable"],
  resolved: ["resolved", "in_triage", "exploitable"],
  resolved_with_pedigree: ["resolved_with_pedigree", "in_triage", "exploitable"],
};

export const isVexState = (s: string): s is VexState => (VEX_STATES as readonly string[]).includes(s);
export const mayMove = (from: VexState, to: VexState) => VEX_MOVES[from].includes(to);

export interface Triage {
  status: VexState;
  justification: VexJustification | null;
  responses: VexResponse[];
  detail: string | null;
}

export interface TriageInput {
  status: string;
  justification?: string;
  responses: string[];
  detail?: string;
}

/**
 * The triage the input asks for, or the violations: a known state; a justification only with not_affected, which
 * needs a justification or a detail (OpenVEX's rule); known responses, each once; detail at most 10000.
 */
export function triageOf(input: TriageInput, v: FieldViolation[]): Triage | null {
  const status = input.status.trim().toLowerCase();
  if (!isVexState(status)) v.push({ path: "body.status", message: `must be one of ${VEX_STATES.join(", ")}` });
  const justification = input.justification?.trim().toLowerCase() || null;
  if (justification !== null && !(VEX_JUSTIFICATIONS as readonly string[]).includes(justification))
    v.push({ path: "body.justification", message: `must be one of ${VEX_JUSTIFICATIONS.join(", ")}` });
  else if (justification !== null && status !== "not_affected")
    v.push({ path: "body.justification", message: "is given only with the status not_affected" });
  const responses = [...new Set(input.responses.map((r) => r.trim().toLowerCase()))];
  for (const r of responses)
    if (!(VEX_RESPONSES as readonly string[]).includes(r))
      v.push({ path: "body.response", message: `must be among ${VEX_RESPONSES.join(", ")}` });
  const detail = input.detail?.trim() || null;
  if (detail !== null && [...detail].length > DETAIL_MAX)
    v.push({ path: "body.detail", message: `must be at most ${DETAIL_MAX} characters` });
  // OpenVEX requires a justification or an impact statement for not_affected; the export needs one of them.
  if (status === "not_affected" && justification === null && detail === null)
    v.push({ path: "body.justification", message: "or a detail is required with the status not_affected" });
  if (v.length) return null;
  return {
    status: status as VexState,
    justification: justification as VexJustification | null,
    responses: responses as VexResponse[],
    detail,
  };
}

export const sameTriage = (a: Triage, b: Triage) =>
  a.status === b.status &&
  a.justification === b.justification &&
  a.detail === b.detail &&
  a.responses.length === b.responses.length &&
  a.responses.every((r, i) => b.responses[i] === r);
