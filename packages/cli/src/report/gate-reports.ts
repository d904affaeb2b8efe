// The gate verdict in the four forms `sca gate --format` writes: text for people, the API's JSON as is, SARIF 2.1.0
// for code-scanning UIs and JUnit XML for CI test reports. Pure: the verdict in, a document out.
import type { Schemas } from "@sca/api-client";

export type GateResult = Schemas["GateResult"];
type Reason = GateResult["reasons"][number];
export type GateFormat = "text" | "json" | "sarif" | "junit";
export const GATE_FORMATS: readonly GateFormat[] = ["text", "json", "sarif", "junit"];

export interface GateReportContext {
  projectSlug: string;
  /** The portal's web origin, for links. */
  portalUrl: string;
  /** The file SARIF results point at (an SBOM or lockfile in the repository), when given. */
  artifact?: string | undefined;
  toolVersion: string;
}

export function gateReport(format: GateFormat, result: GateResult, ctx: GateReportContext): string {
  switch (format) {
    case "text":
      return gateText(result, ctx);
    case "json":
      return `${JSON.stringify(result, null, 2)}\n`;
    case "sarif":
      return `${JSON.stringify(gateSarif(result, ctx), null, 2)}\n`;
    case "junit":
      return gateJunit(result, ctx);
  }
}

function gateText(result: GateResult, ctx: GateReportContext): string {
  const lines = [`gate: ${result.outcome} - project ${ctx.projectSlug}, scan ${result.scan_id ?? "none"}`];
  for (const reason of result.reasons) {
    lines.push(`  - ${reason.message}`);
    for (const f of reason.findings)
      lines.push(`      ${f.vulnerability_id} ${f.severity} in ${f.component_name}@${f.component_version ?? "?"}`);
    for (const c of reason.components)
      lines.push(`      ${c.name}@${c.version ?? "?"}${c.license ? ` (${c.license})` : ""}`);
    if (reason.truncated) lines.push(`      … ${reason.count} in all`);
  }
  return `${lines.join("\n")}\n`;
}

const RULES: Record<Reason["code"], string> = {
  no_scan: "The project has no succeeded scan to judge",
  critical_vulnerabilities: "Open critical vulnerabilities",
  forbidden_licenses: "Components under a forbidden license",
  epss_threshold: "Open findings at or above the EPSS threshold",
  epss_missing_data: "EPSS scores missing while the policy blocks on missing data",
  malicious_components: "Components known to be malicious",
};

interface SarifResult {
  ruleId: string;
  level: "error";
  message: { text: string };
  locations: object[];
  partialFingerprints: Record<string, string>;
  properties?: Record<string, unknown>;
}

function location(ctx: GateReportContext, fullyQualifiedName: string): object[] {
  const logical = { logicalLocations: [{ fullyQualifiedName, kind: "module" }] };
  return [ctx.artifact ? { physicalLocation: { artifactLocation: { uri: ctx.artifact } }, ...logical } : logical];
}

export function gateSarif(result: GateResult, ctx: GateReportContext): object {
  const results: SarifResult[] = [];
  for (const reason of result.reasons) {
    for (const f of reason.findings)
      results.push({
        ruleId: reason.code,
        level: "error",
        message: {
          text: `${f.vulnerability_id} (${f.severity}) in ${f.component_name}@${f.component_version ?? "?"}: ${reason.message}`,
        },
        locations: location(ctx, f.purl ?? f.component_name),
        partialFingerprints: { "scaFinding/v1": `${f.vulnerability_id}|${f.purl ?? f.component_name}` },
        properties: { finding_id: f.finding_id, epss_score: f.epss_score, status: f.status },
      });
    for (const c of reason.components)
      results.push({
        ruleId: reason.code,
        level: "error",
        message: { text: `${c.name}@${c.version ?? "?"}${c.license ? ` (${c.license})` : ""}: ${reason.message}` },
        locations: location(ctx, c.purl ?? c.name),
        partialFingerprints: { "scaComponent/v1": `${reason.code}|${c.purl ?? c.name}` },
      });
    // A reason without listed items (no scan, or more than listed): the reason itself is a result.
    if (reason.findings.length + reason.components.length === 0 || reason.truncated)
      results.push({
        ruleId: reason.code,
        level: "error",
        message: { text: reason.message },
        locations: location(ctx, ctx.projectSlug),
        partialFingerprints: { "scaReason/v1": `${reason.code}|${ctx.projectSlug}` },
        properties: { count: reason.count },
      });
  }
  return {
    $schema: "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "sca",
            version: ctx.toolVersion,
            informationUri: ctx.portalUrl,
            rules: Object.entries(RULES).map(([id, text]) => ({
              id,
              shortDescription: { text },
              defaultConfiguration: { level: "error" },
            })),
          },
        },
        results,
        properties: {
          project: ctx.projectSlug,
          scan_id: result.scan_id,
          outcome: result.outcome,
          evaluated_at: result.evaluated_at,
        },
      },
    ],
  };
}

const xml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

/** One test case per check of the gate; a failed check is a <failure> naming what failed it. */
export function gateJunit(result: GateResult, ctx: GateReportContext): string {
  const failed = new Map(result.reasons.map((r) => [r.code, r]));
  const checks: { name: string; codes: Reason["code"][]; skipped?: boolean }[] = [
    { name: "critical_vulnerabilities", codes: ["critical_vulnerabilities"] },
    { name: "forbidden_licenses", codes: ["forbidden_licenses"] },
    { name: "epss", codes: ["epss_threshold", "epss_missing_data"], skipped: result.epss_outcome === "off" },
    { name: "malicious_components", codes: ["malicious_components"] },
  ];
  if (failed.has("no_scan")) checks.unshift({ name: "scanned", codes: ["no_scan"] });
  const cases = checks.map((check) => {
    const reasons = check.codes.flatMap((c) => (failed.has(c) ? [failed.get(c)!] : []));
    const open = `    <testcase classname="sca.gate.${xml(ctx.projectSlug)}" name="${check.name}">`;
    if (reasons.length === 0)
      return check.skipped
        ? `${open}<skipped message="not enabled by the gate policy"/></testcase>`
        : `${open}</testcase>`;
    const detail = reasons
      .flatMap((r) => [
        r.message,
        ...r.findings.map(
          (f) => `${f.vulnerability_id} ${f.severity} ${f.component_name}@${f.component_version ?? "?"}`,
        ),
        ...r.components.map((c) => `${c.name}@${c.version ?? "?"}`),
      ])
      .join("\n");
    return `${open}\n      <failure type="${reasons[0]!.code}" message="${xml(reasons.map((r) => r.message).join("; "))}">${xml(detail)}</failure>\n    </testcase>`;
  });
  const failures = checks.filter((c) => c.codes.some((code) => failed.has(code))).length;
  const skipped = checks.filter((c) => c.skipped && !c.codes.some((code) => failed.has(code))).length;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="sca gate" tests="${checks.length}" failures="${failures}" skipped="${skipped}">`,
    `  <testsuite name="sca gate: ${xml(ctx.projectSlug)}" tests="${checks.length}" failures="${failures}" skipped="${skipped}" timestamp="${xml(result.evaluated_at)}">`,
    `    <properties><property name="scan_id" value="${result.scan_id ?? ""}"/><property name="outcome" value="${result.outcome}"/></properties>`,
    ...cases,
    `  </testsuite>`,
    `</testsuites>`,
    "",
  ].join("\n");
}
