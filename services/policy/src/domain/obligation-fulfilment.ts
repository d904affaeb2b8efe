// Who may record a project's obligation fulfilments and what a fulfilment holds (docs/obligations.md):
// - reading obligations, fulfilments and the notice: whoever may read the project (the projects service decides;
//   anyone else learns nothing: not found);
// - recording or removing a fulfilment: developer or above on the project's team, a super_admin anywhere (the same
//   bar as triaging a finding); a reader below it: forbidden.
// - a fulfilment: an optional note (at most 4000 characters) and an optional evidence_url (http or https, at most
//   2048 characters); an empty string is the same as none.
import type { FieldViolation } from "@sca/problem";
import { isSuperAdmin, type Caller, type Role } from "@sca/rpc";

const RANK: Record<Role, number> = { super_admin: 5, group_admin: 4, team_admin: 3, developer: 2, viewer: 1 };

export function mayFulfil(caller: Caller, teamId: string): boolean {
  if (isSuperAdmin(caller)) return true;
  const role = caller.memberships.find((m) => m.team_id === teamId)?.role;
  return role !== undefined && RANK[role] >= RANK.developer;
}

export const FULFILMENT_NOTE_MAX = 4000;
export const EVIDENCE_URL_MAX = 2048;

export interface FulfilmentFields {
  note: string | null;
  evidenceUrl: string | null;
}

export function planFulfilment(input: {
  note?: string;
  evidenceUrl?: string;
}): { ok: true; fields: FulfilmentFields } | { ok: false; violations: FieldViolation[] } {
  const v: FieldViolation[] = [];
  const note = input.note?.trim() || null;
  const evidenceUrl = input.evidenceUrl?.trim() || null;
  if (note !== null && [...note].length > FULFILMENT_NOTE_MAX)
    v.push({ path: "note", message: `must be at most ${FULFILMENT_NOTE_MAX} characters` });
  if (evidenceUrl !== null) {
    const url = URL.parse(evidenceUrl);
    if (evidenceUrl.length > EVIDENCE_URL_MAX)
      v.push({ path: "evidence_url", message: `must be at most ${EVIDENCE_URL_MAX} characters` });
    else if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
      v.push({ path: "evidence_url", message: "must be an http or https URL" });
  }
  return v.length ? { ok: false, violations: v } : { ok: true, fields: { note, evidenceUrl } };
}
