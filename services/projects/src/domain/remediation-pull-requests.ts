// The remediation pull request's pure rules (docs/scm.md, "Remediation pull requests"): which bumps it carries, their
// fingerprint (what makes a second request find the first PR), its branch name and its text.
import { createHash } from "node:crypto";
import type { ManifestChange, Recommendation } from "./npm-remediation.ts";

export interface PackageBump {
  package: string;
  from: string;
  to: string;
}

/** The bumps the edit really made: each recommended package whose range changed in some section, by name. */
export function bumpsOf(recommendations: readonly Recommendation[], changes: readonly ManifestChange[]): PackageBump[] {
  const changed = new Set(changes.filter((c) => c.changed).map((c) => c.package));
  return recommendations
    .filter((r) => changed.has(r.package))
    .map((r) => ({ package: r.package, from: r.current_version, to: r.recommended_version }))
    .sort((a, b) => (a.package < b.package ? -1 : a.package > b.package ? 1 : 0));
}

/** SHA-256 hex of the sorted `package@target` lines: the same bumps give the same fingerprint. */
export function bumpFingerprint(bumps: readonly PackageBump[]): string {
  const lines = bumps.map((b) => `${b.package}@${b.to}`).sort();
  return createHash("sha256").update(lines.join("\n")).digest("hex");
}

/** `<service_name>/remediation-<first 12 hex digits of the fingerprint>`. */
export function remediationBranch(serviceName: string, fingerprint: string): string {
  return `${serviceName}/remediation-${fingerprint.slice(0, 12)}`;
}

export function pullRequestTitle(bumps: readonly PackageBump[]): string {
  if (bumps.length === 1) return `Bump ${bumps[0]!.package} from ${bumps[0]!.from} to ${bumps[0]!.to}`;
  return `Bump ${bumps.length} vulnerable npm dependencies`;
}

export function pullRequestBody(bumps: readonly PackageBump[]): string {
  return [
    "This pull request moves vulnerable npm dependencies to the lowest versions that fix their known vulnerabilities.",
    "",
    "| package | from | to |",
    "|---|---|---|",
    ...bumps.map((b) => `| ${b.package} | ${b.from} | ${b.to} |`),
    "",
    "Only package.json is edited: regenerate the lockfile (`npm install`) on this branch before merging.",
  ].join("\n");
}

export function commitMessage(bumps: readonly PackageBump[]): string {
  return `${pullRequestTitle(bumps)}\n\n${bumps.map((b) => `${b.package}: ${b.from} -> ${b.to}`).join("\n")}\n`;
}

/** `owner/name` as hosts spell repositories (letters, digits, `.`, `_`, `-`; no `..`). */
export function isRepositoryFullName(value: string): boolean {
  return value.length <= 255 && /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(value) && !value.includes("..");
}

/**
 * A `creating` record untouched this long was left by a crash between the record and the remote writes (no request
 * takes it: each of its at most seven host calls ends within SCM_HTTP_TIMEOUT_MS, 120 s at most).
 */
export const CREATING_ABANDONED_AFTER_MS = 15 * 60_000;

/** The `creating` records last touched before this are reconciled. */
export function abandonedCreatingBefore(now: Date): Date {
  return new Date(now.getTime() - CREATING_ABANDONED_AFTER_MS);
}

/** What the host shows of an abandoned `creating` record's pull request. */
export type CreatingRecordOnHost =
  /** No live installation links the project, or it links another repository than the record's: nothing to see. */
  | { kind: "not_reachable" }
  | { kind: "open_pull_request"; number: number; url: string }
  /** No open pull request from the record's branch (the branch itself may be there, with its commit). */
  | { kind: "no_pull_request" }
  | { kind: "host_failed"; status: number | null; mayAnswerLater: boolean };

export type CreatingSettlement =
  | { status: "open"; prNumber: number; prUrl: string; prState: "open" }
  | { status: "failed"; failureStatus: number | null };

/**
 * How an abandoned `creating` record is settled (docs/scm.md, "Remediation pull requests"): its pull request was
 * opened before the crash: `open` with it; it was not, or the host can no longer be asked for this repository:
 * `failed` (a failed record blocks nothing: the next request reuses the branch and commit left behind, as after a
 * refused write); a host that may answer later: null, the record stays `creating` for the next reconciliation.
 */
export function creatingSettlement(onHost: CreatingRecordOnHost): CreatingSettlement | null {
  switch (onHost.kind) {
    case "open_pull_request":
      return { status: "open", prNumber: onHost.number, prUrl: onHost.url, prState: "open" };
    case "no_pull_request":
    case "not_reachable":
      return { status: "failed", failureStatus: null };
    case "host_failed":
      return onHost.mayAnswerLater ? null : { status: "failed", failureStatus: onHost.status };
  }
}
