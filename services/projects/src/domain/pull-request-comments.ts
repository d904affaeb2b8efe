// The pull-request comment's pure rules (docs/scm.md, "Pull-request comments"): what a pull request's scan brings
// compared with the base branch's scan, and the comment's text. One comment per project on a pull request: the
// marker line finds it again on a rescan.

export interface ScanFinding {
  vulnerabilityId: string;
  severity: string;
  package: string;
  version: string;
}

export interface LicensedComponent {
  package: string;
  version: string;
  license: string;
  category: string;
}

export interface CommentGate {
  outcome: string;
  judgedScanId: string | null;
  reasons: string[];
}

/** At most this many rows of each table; the rest are counted. */
export const COMMENT_ROWS = 50;

const SEVERITY_ORDER = ["critical", "high", "medium", "low", "info", "unknown"];
const severityRank = (s: string) => {
  const i = SEVERITY_ORDER.indexOf(s);
  return i < 0 ? SEVERITY_ORDER.length : i;
};

/**
 * The findings of the pull request's scan that the base has not: a vulnerability on a package (by name, any
 * version) the base already carries is not new. Most severe first, then by id.
 */
export function newFindings(pr: readonly ScanFinding[], base: readonly ScanFinding[]): ScanFinding[] {
  const held = new Set(base.map((f) => `${f.vulnerabilityId}\u0000${f.package}`));
  const seen = new Set<string>();
  return pr
    .filter((f) => {
      const key = `${f.vulnerabilityId}\u0000${f.package}`;
      if (held.has(key) || seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort(
      (a, b) =>
        severityRank(a.severity) - severityRank(b.severity) ||
        (a.vulnerabilityId < b.vulnerabilityId ? -1 : a.vulnerabilityId > b.vulnerabilityId ? 1 : 0),
    );
}

/** The forbidden-license components of the pull request's scan whose package and license the base has not. */
export function newLicenseProblems(
  pr: readonly LicensedComponent[],
  base: readonly LicensedComponent[],
): LicensedComponent[] {
  const held = new Set(base.map((c) => `${c.package}\u0000${c.license}`));
  return pr.filter((c) => !held.has(`${c.package}\u0000${c.license}`));
}

export function commentMarker(projectId: string): string {
  return `<!-- sca-portal:pr-comment project=${projectId} -->`;
}

/** Table cells hold no pipe or line break. */
const cell = (text: string) => text.replace(/[|\r\n]/g, " ");

export function commentBody(input: {
  projectId: string;
  scanId: string;
  baseScanId: string | null;
  baseRef: string;
  gate: CommentGate | null;
  findings: readonly ScanFinding[];
  licenses: readonly LicensedComponent[];
}): string {
  const lines = [commentMarker(input.projectId), "### Dependency scan", ""];
  if (input.gate) {
    const verdict = input.gate.outcome === "pass" ? "passed" : input.gate.outcome === "fail" ? "failed" : "no scan";
    const judged =
      input.gate.judgedScanId === input.scanId
        ? "this scan"
        : `the project's latest succeeded scan ${input.gate.judgedScanId ?? "(none)"}`;
    lines.push(`**Gate: ${verdict}** (judged on ${judged}).`);
    for (const reason of input.gate.reasons) lines.push(`- ${cell(reason)}`);
    lines.push("");
  }
  lines.push(
    input.baseScanId
      ? `Compared with the latest scan of \`${input.baseRef}\` (${input.baseScanId}).`
      : `No scan of \`${input.baseRef}\` to compare with: every finding of this scan is listed.`,
    "",
  );
  const more = (n: number) => (n > COMMENT_ROWS ? [`… and ${n - COMMENT_ROWS} more.`, ""] : []);
  if (input.findings.length === 0) lines.push("No new vulnerabilities.", "");
  else
    lines.push(
      `**${input.findings.length} new ${input.findings.length === 1 ? "vulnerability" : "vulnerabilities"}**`,
      "",
      "| severity | vulnerability | package | version |",
      "|---|---|---|---|",
      ...input.findings
        .slice(0, COMMENT_ROWS)
        .map((f) => `| ${f.severity} | ${cell(f.vulnerabilityId)} | ${cell(f.package)} | ${cell(f.version)} |`),
      "",
      ...more(input.findings.length),
    );
  if (input.licenses.length === 0) lines.push("No new license problems.");
  else
    lines.push(
      `**${input.licenses.length} new license ${input.licenses.length === 1 ? "problem" : "problems"}**`,
      "",
      "| package | version | license | category |",
      "|---|---|---|---|",
      ...input.licenses
        .slice(0, COMMENT_ROWS)
        .map((c) => `| ${cell(c.package)} | ${cell(c.version)} | ${cell(c.license)} | ${c.category} |`),
      ...more(input.licenses.length),
    );
  return `${lines.join("\n")}\n`;
}

/** The refs a base branch's scans carry: `refs/heads/<name>` and the bare name. */
export function baseRefs(baseRef: string): string[] {
  const short = baseRef.startsWith("refs/heads/") ? baseRef.slice("refs/heads/".length) : baseRef;
  return [...new Set([`refs/heads/${short}`, short])];
}

/** What the scan-orchestrator says of a scan's state, as the automatic comment reads it. */
export interface ScanStateNews {
  projectId: string;
  scanId: string;
  status: string;
  landedSuperseded: boolean;
  /** Set only for a scan a pull-request (merge-request) webhook started. */
  pullRequestNumber?: bigint;
  pullRequestBaseRef?: string;
}

export interface AutomaticComment {
  projectId: string;
  scanId: string;
  pullRequestNumber: number;
  baseRef: string;
}

/**
 * The comment a scan's state news calls for (docs/scm.md, "Pull-request comments"): a pull-request webhook's scan
 * that succeeded. One that landed superseded (a newer scan of the same ref succeeded first, and commented) would
 * put older news over the newer comment: none.
 */
export function automaticCommentOf(news: ScanStateNews): AutomaticComment | null {
  if (news.status !== "succeeded" || news.landedSuperseded) return null;
  const number = news.pullRequestNumber === undefined ? NaN : Number(news.pullRequestNumber);
  if (!Number.isSafeInteger(number) || number < 1 || !news.pullRequestBaseRef) return null;
  return {
    projectId: news.projectId.toLowerCase(),
    scanId: news.scanId.toLowerCase(),
    pullRequestNumber: number,
    baseRef: news.pullRequestBaseRef,
  };
}
