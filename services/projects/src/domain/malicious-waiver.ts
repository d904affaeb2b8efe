// Malicious-package waivers (docs/enrichment-feeds.md, "Waivers"): what a waiver request must hold, how long it
// lasts, and what state a stored one is in. Pure.
import type { FieldViolation } from "@sca/problem";

export const WAIVER_PURL_MAX = 2048;
export const WAIVER_REASON_MAX = 2000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface WaiverRequest {
  purl: string;
  reason: string;
  days: number;
}

export type WaiverState = "active" | "expired" | "revoked";

/** The violations of a request under the deployment's longest waiver (MALICIOUS_WAIVE_MAX_DAYS). */
export function waiverViolations(r: WaiverRequest, maxDays: number): FieldViolation[] {
  const v: FieldViolation[] = [];
  const purl = r.purl.trim();
  if (!purl.startsWith("pkg:") || purl.length > WAIVER_PURL_MAX)
    v.push({ path: "purl", message: `a package URL (pkg:...), at most ${WAIVER_PURL_MAX} characters` });
  const reason = r.reason.trim();
  if (reason.length < 1 || reason.length > WAIVER_REASON_MAX)
    v.push({ path: "reason", message: `1 to ${WAIVER_REASON_MAX} characters` });
  if (!Number.isInteger(r.days) || r.days < 1 || r.days > maxDays)
    v.push({ path: "days", message: `between 1 and ${maxDays} (MALICIOUS_WAIVE_MAX_DAYS)` });
  return v;
}

/** When a waiver granted at `now` for `days` ends. */
export const waiverExpiry = (now: Date, days: number): Date => new Date(now.getTime() + days * DAY_MS);

export function waiverState(w: { expiresAt: Date; revokedAt: Date | null }, now: Date): WaiverState {
  if (w.revokedAt) return "revoked";
  return w.expiresAt.getTime() > now.getTime() ? "active" : "expired";
}
