// A small inventory and the scanner-runner's verdicts for it, as the findings tests (projects' and the gateway's)
// hand them over: real-world package versions whose vulnerabilities two real VEX documents of
// the shared data set (data/vex) speak of (jackson-databind CVE-2020-25649 in CycloneDX's vex.json, git CVE-2014-123456 in
// vexctl's demo.vex.json), plus npm and Maven findings with scores and one clean, assessed version.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { sizeDelimitedEncode } from "@bufbuild/protobuf/wire";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { InventoryRecordSchema } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import type {
  RecordScanMatchesRequestSchema,
  VulnerabilitySchema,
} from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";

const record = (r: MessageInitShape<typeof InventoryRecordSchema>["record"]) =>
  sizeDelimitedEncode(InventoryRecordSchema, create(InventoryRecordSchema, { record: r }));

export const PURLS = {
  jackson: "pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.0?type=jar",
  git: "pkg:apk/alpine/git@2.39.0-r1?arch=x86_64",
  lodash: "pkg:npm/lodash@4.17.20",
  log4j: "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1",
  leftPad: "pkg:npm/left-pad@1.3.0",
  unassessed: "pkg:golang/github.com/acme/tool@v1.0.0",
} as const;

/** The artefact: six components, the first five assessed by the verdicts below. */
export function findingsArtefact(): Uint8Array {
  const component = (key: keyof typeof PURLS, name: string, version: string) =>
    record({ case: "component", value: { key: PURLS[key], name, version, purl: PURLS[key] } });
  return Buffer.concat([
    record({ case: "document", value: { format: "cyclonedx-json", specVersion: "1.6", graphRooted: true } }),
    component("jackson", "jackson-databind", "2.10.0"),
    component("git", "git", "2.39.0-r1"),
    component("lodash", "lodash", "4.17.20"),
    component("log4j", "log4j-core", "2.14.1"),
    component("leftPad", "left-pad", "1.3.0"),
    component("unassessed", "tool", "v1.0.0"),
  ]);
}

type VulnInit = MessageInitShape<typeof VulnerabilitySchema>;
export const VULNS: Record<string, VulnInit> = {
  "CVE-2020-25649": {
    id: "CVE-2020-25649",
    aliases: ["GHSA-288c-cq4h-88gq"],
    summary: "jackson-databind XML external entity",
    severity: "high",
    cvssScore: 7.5,
    cvssVector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:H/A:N",
    publishedAt: timestampFromDate(new Date("2020-12-03T00:00:00Z")),
    epssScore: 0.01,
    epssPercentile: 0.7,
  },
  "CVE-2014-123456": { id: "CVE-2014-123456", summary: "git example", severity: "medium", cvssScore: 5 },
  "CVE-2021-23337": {
    id: "CVE-2021-23337",
    aliases: ["GHSA-35jh-r3h4-6jhm"],
    summary: "Command Injection in lodash",
    severity: "high",
    cvssScore: 7.2,
    cvssVector: "CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H",
    epssScore: 0.02,
  },
  "CVE-2020-28500": {
    id: "CVE-2020-28500",
    aliases: ["GHSA-29mw-wpgm-hmr9"],
    summary: "ReDoS in lodash",
    severity: "medium",
    cvssScore: 5.3,
    cvssVector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L",
  },
  "CVE-2021-44228": {
    id: "CVE-2021-44228",
    aliases: ["GHSA-jfh8-c2jp-5v3q"],
    summary: "Log4Shell",
    severity: "critical",
    cvssScore: 10,
    cvssVector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H",
    epssScore: 0.97,
    epssPercentile: 0.999,
    knownExploited: true,
    kevDueDate: "2021-12-24",
  },
};

/** The verdicts of the artefact's assessed versions, as RecordScanMatches carries them. */
export function scanMatches(
  projectId: string,
  scanId: string,
  databaseVersion = "db-1",
): MessageInitShape<typeof RecordScanMatchesRequestSchema> {
  const affecting = (...ids: [string, string[]][]) =>
    ids.map(([vulnerabilityId, fixedVersions]) => ({ vulnerabilityId, fixedVersions }));
  return {
    projectId,
    scanId,
    databaseVersion,
    vulnerabilities: Object.values(VULNS),
    verdicts: [
      {
        package: { ecosystem: "Maven", name: "com.fasterxml.jackson.core:jackson-databind", version: "2.10.0" },
        vulnerabilities: affecting(["CVE-2020-25649", ["2.10.5.1"]]),
      },
      {
        package: { ecosystem: "Alpine", name: "git", version: "2.39.0-r1" },
        vulnerabilities: affecting(["CVE-2014-123456", []]),
      },
      {
        package: { ecosystem: "npm", name: "lodash", version: "4.17.20" },
        vulnerabilities: affecting(["CVE-2021-23337", ["4.17.21"]], ["CVE-2020-28500", ["4.17.21"]]),
      },
      {
        package: { ecosystem: "Maven", name: "org.apache.logging.log4j:log4j-core", version: "2.14.1" },
        vulnerabilities: affecting(["CVE-2021-44228", ["2.15.0"]]),
      },
      { package: { ecosystem: "npm", name: "left-pad", version: "1.3.0" }, vulnerabilities: [] },
    ],
  };
}
