import { describe, expect, it } from "@jest/globals";
import { cveIdsOf, vulnerabilityMessage } from "../src/clients/vulnerability-matches.ts";
import type { KevEntry } from "../src/domain/feeds/kev.ts";
import { UNKNOWN_SEVERITY } from "../src/domain/vulndb/severity.ts";
import type { VulnerabilityRecord } from "../src/domain/vulndb/vulnerabilities.ts";

const ghsa: VulnerabilityRecord = {
  id: "GHSA-jfh8-c2jp-5v3q",
  aliases: ["CVE-2021-44228", "SNYK-JAVA-1"],
  summary: "Log4Shell",
  severity: UNKNOWN_SEVERITY,
  cvss3: null,
  publishedAt: null,
  modifiedAt: new Date("2024-01-01T00:00:00Z"),
  references: [],
};
const kev: KevEntry = {
  cveId: "CVE-2021-44228",
  vendorProject: "Apache",
  product: "Log4j2",
  vulnerabilityName: "Apache Log4j2 Remote Code Execution Vulnerability",
  dateAdded: "2021-12-10",
  dueDate: "2021-12-24",
  knownRansomwareCampaignUse: "Known",
};

describe("a matched vulnerability's enrichment", () => {
  it("is keyed by the CVE among the id and aliases", () => {
    expect(cveIdsOf(ghsa)).toEqual(["CVE-2021-44228"]);
    expect(cveIdsOf({ ...ghsa, id: "cve-2020-1", aliases: [] })).toEqual(["CVE-2020-1"]);
  });

  it("carries the CVE's EPSS score and KEV listing, and nothing when the feeds do not know it", () => {
    const m = vulnerabilityMessage(ghsa, {
      epss: new Map([["CVE-2021-44228", { score: 0.9447, percentile: 0.99993 }]]),
      kev: new Map([["CVE-2021-44228", kev]]),
    });
    expect(m).toMatchObject({
      id: "GHSA-jfh8-c2jp-5v3q",
      epssScore: 0.9447,
      epssPercentile: 0.99993,
      knownExploited: true,
      kevDueDate: "2021-12-24",
    });
    const bare = vulnerabilityMessage(ghsa, { epss: new Map(), kev: new Map() });
    expect(bare.epssScore).toBeUndefined();
    expect(bare.knownExploited).toBe(false);
    expect(bare.kevDueDate).toBe("");
  });
});
