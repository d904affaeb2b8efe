// The gate verdict's four forms. SARIF is checked against the OASIS SARIF 2.1.0 schema (vendored in
// test/schemas, SOURCES.md) with ajv's draft-04 validator, for a failing verdict with every kind of reason, a
// passing one and a project never scanned.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import { gateJunit, gateReport, gateSarif, type GateResult } from "../src/report/gate-reports.ts";

const schema = JSON.parse(
  readFileSync(new URL("./schemas/sarif-schema-2.1.0.json", import.meta.url), "utf8"),
) as Record<string, unknown>;
// A CommonJS module: its class is the default export's `default` under nodenext.
const ajv = new AjvDraft04.default({ allErrors: true, strict: false });
addFormats.default(ajv);
const validateSarif = ajv.compile(schema);

const base: GateResult = {
  project_id: "0b0f7d5e-6a3e-4e33-9d7b-1b2c3d4e5f60",
  scan_id: "01a22336-02e2-731c-82ab-ed989ff1ea4f",
  scanned_at: "2026-11-28T17:31:17.000Z",
  evaluated_at: "2026-11-28T17:32:03.053Z",
  passed: true,
  outcome: "pass",
  reasons: [],
  critical_count: 0,
  reachable_critical_only: false,
  reachability_analysed: false,
  reachable_critical_only_applied: false,
  forbidden_license_count: 0,
  epss_threshold: null,
  epss_gate_count: 0,
  epss_outcome: "off",
  epss_scored_finding_count: 0,
  malicious_component_count: 0,
} as unknown as GateResult;

const failing: GateResult = {
  ...base,
  passed: false,
  outcome: "fail",
  reasons: [
    {
      code: "critical_vulnerabilities",
      message: "1 open critical vulnerability finding: CVE-2019-10744.",
      count: 3,
      findings: [
        {
          finding_id: "5d0c6a4e-1f43-4c0c-9a55-0e0b1f2a3b4c",
          vulnerability_id: "CVE-2019-10744",
          severity: "critical",
          epss_score: 0.5,
          status: "in_triage",
          component_id: "8f7e6d5c-4b3a-4291-8c7d-6e5f4a3b2c1d",
          component_name: "lodash",
          component_version: "2.4.2",
          purl: "pkg:npm/lodash@2.4.2",
        },
      ],
      components: [],
      truncated: true,
    },
    {
      code: "forbidden_licenses",
      message: "1 component has a forbidden license: fuzzball.",
      count: 1,
      findings: [],
      components: [
        {
          component_id: "9e8d7c6b-5a49-4382-9d1e-2f3a4b5c6d7e",
          name: "fuzzball",
          version: "1.4.0",
          purl: "pkg:npm/fuzzball@1.4.0",
          license: "GPL-2.0",
          license_category: "forbidden",
          malicious_state: null,
        },
      ],
      truncated: false,
    },
  ],
} as unknown as GateResult;

const unscanned = {
  ...base,
  scan_id: null,
  passed: false,
  outcome: "no_scan",
  reasons: [
    { code: "no_scan", message: "No succeeded scan", count: 0, findings: [], components: [], truncated: false },
  ],
} as unknown as GateResult;

const ctx = { projectSlug: "juice", portalUrl: "https://portal.example.com", toolVersion: "0.1.0" };

describe("SARIF", () => {
  it.each([
    ["failing", failing],
    ["passing", base],
    ["never scanned", unscanned],
  ])("a %s verdict is valid SARIF 2.1.0", (_name, result) => {
    for (const artifact of [undefined, "sbom/bom.json"]) {
      const doc = gateSarif(result, { ...ctx, artifact });
      const valid = validateSarif(doc);
      expect(validateSarif.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
    }
  });

  it("the schema refuses what is not SARIF", () => {
    expect(validateSarif({ runs: [] })).toBe(false);
    expect(validateSarif({ version: "2.1.0", runs: [{ tool: { driver: {} } }] })).toBe(false);
  });

  it("has one result per offending finding and component, and one for a truncated reason", () => {
    const doc = gateSarif(failing, { ...ctx, artifact: "bom.json" }) as {
      runs: { results: { ruleId: string; message: { text: string }; locations: object[] }[] }[];
    };
    const results = doc.runs[0]!.results;
    expect(results.map((r) => r.ruleId)).toEqual([
      "critical_vulnerabilities",
      "critical_vulnerabilities",
      "forbidden_licenses",
    ]);
    expect(results[0]!.message.text).toContain("CVE-2019-10744");
    expect(results[0]!.locations[0]).toMatchObject({
      physicalLocation: { artifactLocation: { uri: "bom.json" } },
      logicalLocations: [{ fullyQualifiedName: "pkg:npm/lodash@2.4.2" }],
    });
    expect(gateSarif(base, ctx)).toMatchObject({ runs: [{ results: [] }] });
  });
});

describe("JUnit", () => {
  it("fails the checks that failed, skips EPSS when off, and escapes XML", () => {
    const xml = gateJunit(failing, { ...ctx, projectSlug: "a&b" });
    expect(xml).toContain('<testsuites name="sca gate" tests="4" failures="2" skipped="1">');
    expect(xml).toContain('<failure type="critical_vulnerabilities"');
    expect(xml).toContain('<failure type="forbidden_licenses"');
    expect(xml).toContain('name="epss"><skipped');
    expect(xml).toContain('classname="sca.gate.a&amp;b"');
    expect(xml).not.toMatch(/a&b/);
  });

  it("passes every check of a passing verdict, and names a missing scan", () => {
    expect(gateJunit(base, ctx)).toContain('tests="4" failures="0" skipped="1"');
    expect(gateJunit(unscanned, ctx)).toContain('<testcase classname="sca.gate.juice" name="scanned">');
  });
});

describe("text and JSON", () => {
  it("names the outcome, the scan, each reason and what failed it", () => {
    const text = gateReport("text", failing, ctx);
    expect(text).toMatch(/^gate: fail - project juice, scan 01a22336-02e2-731c-82ab-ed989ff1ea4f$/m);
    expect(text).toContain("CVE-2019-10744 critical in lodash@2.4.2");
    expect(text).toContain("fuzzball@1.4.0 (GPL-2.0)");
    expect(text).toContain("… 3 in all");
  });

  it("writes the API's verdict unchanged as JSON", () => {
    expect(JSON.parse(gateReport("json", failing, ctx))).toEqual(failing);
  });
});
