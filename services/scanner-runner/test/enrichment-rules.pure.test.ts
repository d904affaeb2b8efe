// The feeds' pure rules on the real data: endoflife.date products, OSV MAL- records, FIRST's EPSS rows, CISA's KEV.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { sharedDir } from "@sca/testkit";
import { cycleOf, eolVerdictOf, productIndexOf, purlIdentity, readEolProduct } from "../src/domain/feeds/eol.ts";
import { epssScoreDateOf, epssScoreOf } from "../src/domain/feeds/epss.ts";
import { isSnapshotStale } from "../src/domain/feeds/feed-status.ts";
import { kevCatalogOf, kevChanges } from "../src/domain/feeds/kev.ts";
import { maliciousVerdictOf, readMaliciousRecord, type MaliciousRecord } from "../src/domain/feeds/malicious.ts";
import { readEolSnapshot } from "../src/feeds/eol-feed.ts";
import { readKevCatalog } from "../src/feeds/kev-feed.ts";

const data = (...p: string[]) => join(sharedDir(), "data", ...p);
const json = (...p: string[]) => JSON.parse(readFileSync(data(...p), "utf8")) as unknown;

describe("end-of-life verdicts", () => {
  const node = readEolProduct("nodejs", json("eol", "nodejs.json"))!;

  it("finds the cycle by the longest prefix ending at a separator", () => {
    const python = readEolProduct("python", json("eol", "python.json"))!;
    expect(cycleOf(python.releases, "3.10.12")?.releaseCycle).toBe("3.10");
    expect(cycleOf(python.releases, "3.1.5")?.releaseCycle).toBe("3.1");
    expect(cycleOf(node.releases, "v16.20.2")?.releaseCycle).toBe("16");
    expect(cycleOf(node.releases, "160.0.0")).toBeNull();
  });

  it("is eol once the cycle's date is on or before the day, supported before", () => {
    expect(eolVerdictOf(node, "16.20.2", "2026-11-24")).toEqual({
      state: "eol",
      product: "nodejs",
      cycle: "16",
      date: "2023-09-11",
    });
    expect(eolVerdictOf(node, "24.1.0", "2026-11-24")).toMatchObject({ state: "supported", date: "2028-04-30" });
    expect(eolVerdictOf(node, "25.0.0", "2026-06-01").state).toBe("eol");
    expect(eolVerdictOf(node, "25.0.0", "2026-05-31").state).toBe("supported");
    expect(eolVerdictOf(node, "99.0.0", "2026-11-24")).toMatchObject({ state: "unknown", cycle: null });
  });

  it("takes a bare true or false of the dataset", () => {
    const product = {
      product: "x",
      releases: [
        { releaseCycle: "1", eol: true },
        { releaseCycle: "2", eol: false },
      ],
    };
    expect(eolVerdictOf(product, "1.4", "2026-01-01")).toMatchObject({ state: "eol", date: null });
    expect(eolVerdictOf(product, "2.0", "2026-01-01")).toMatchObject({ state: "supported", date: null });
  });

  it("maps purls to products by the dataset's identifiers and ours", async () => {
    const index = productIndexOf(await readEolSnapshot(data("eol")));
    const productOf = (purl: string) => index.get(purlIdentity(purl)!);
    expect(productOf("pkg:npm/%40angular/core@17.0.0")).toBe("angular");
    expect(productOf("pkg:pypi/django@4.2.1")).toBe("django");
    expect(productOf("pkg:maven/org.springframework/spring-core@5.3.0")).toBe("spring-framework");
    expect(productOf("pkg:npm/electron@30.0.0")).toBe("electron");
    expect(productOf("pkg:deb/debian/nginx@1.22.1-9?distro=debian-12")).toBe("nginx");
    expect(productOf("pkg:npm/left-pad@1.0.0")).toBeUndefined();
  });

  it("reads endoflife.date's API v0 answer too", () => {
    const p = readEolProduct("nodejs", [{ cycle: "18", eol: "2025-04-30", latest: "18.20.0" }]);
    expect(p?.releases).toEqual([{ releaseCycle: "18", eol: "2025-04-30", latest: "18.20.0" }]);
    expect(readEolProduct("nodejs", { releases: [{ cycle: {} }] })).toBeNull();
    expect(readEolProduct("nodejs", "<html>")).toBeNull();
  });

  it("refuses a snapshot directory holding something else", async () => {
    await expect(readEolSnapshot(data("kev"))).rejects.toThrow("is not an endoflife.date product");
  });
});

describe("malicious verdicts", () => {
  const records = (...p: string[]) => readMaliciousRecord(json("malicious", ...p))!;

  it("flags every version of a package a record affects from version 0", () => {
    const r = records("npm", "MAL-2022-1005.json");
    expect(maliciousVerdictOf(r, "1.0.0")).toEqual({ state: "flagged", id: "MAL-2022-1005", source: "ghsa-malware" });
    expect(maliciousVerdictOf(r, "0.0.1-alpha").state).toBe("flagged");
  });

  it("flags only the listed versions of a record without ranges", () => {
    const r = records("NuGet", "MAL-2024-3997.json");
    expect(maliciousVerdictOf(r, "2.3.1")).toMatchObject({ state: "flagged", id: "MAL-2024-3997" });
    expect(maliciousVerdictOf(r, "2.3.0")).toEqual({ state: "clear" });
  });

  it("compares a SEMVER range's bounds", () => {
    const r: MaliciousRecord[] = [
      {
        id: "MAL-0000-1",
        ecosystem: "npm",
        name: "x",
        versions: [],
        ranges: [{ type: "SEMVER", events: [{ introduced: "1.2.0" }, { fixed: "1.3.0" }] }],
        source: "test",
        withdrawn: false,
      },
    ];
    expect(maliciousVerdictOf(r, "1.1.9").state).toBe("clear");
    expect(maliciousVerdictOf(r, "1.2.0").state).toBe("flagged");
    expect(maliciousVerdictOf(r, "1.3.0").state).toBe("clear");
    expect(maliciousVerdictOf([{ ...r[0]!, withdrawn: true }], "1.2.0").state).toBe("clear");
  });

  it("reads only MAL- records", () => {
    expect(readMaliciousRecord({ id: "GHSA-xxxx", affected: [] })).toBeNull();
    expect(readMaliciousRecord({ id: "MAL-1", affected: [{ package: { ecosystem: "npm" } }] })).toBeNull();
  });
});

describe("EPSS rows", () => {
  it("takes FIRST's rows and refuses anything else", () => {
    expect(epssScoreOf({ cve: "CVE-1999-0087", epss: "0.013720000", percentile: "0.696040000" })).toEqual({
      cveId: "CVE-1999-0087",
      score: 0.01372,
      percentile: 0.69604,
    });
    expect(epssScoreOf({ cve: "CVE-1999-0087", epss: "1.5", percentile: "0.5" })).toBeNull();
    expect(epssScoreOf({ cve: "GHSA-1", epss: "0.1", percentile: "0.5" })).toBeNull();
    expect(epssScoreOf({ cve: "CVE-1999-0087", epss: "", percentile: "0.5" })).toBeNull();
    expect(epssScoreDateOf("#model_version:v2025.03.14,score_date:2025-11-20T12:55:00Z")).toBe("2025-11-20");
  });
});

describe("the KEV catalog", () => {
  it("reads CISA's catalog, checked against CISA's schema", async () => {
    const catalog = await readKevCatalog(readFileSync(data("kev", "known_exploited_vulnerabilities.json")));
    expect(catalog.entries).toHaveLength(1404);
    expect(catalog.catalogVersion).toBe("2025.08.25");
    expect(catalog.entries.find((e) => e.cveId === "CVE-2025-48384")).toMatchObject({
      dueDate: "2025-09-15",
      dateAdded: "2025-08-25",
    });
  });

  it("refuses a truncated or schema-breaking catalog", async () => {
    const bytes = readFileSync(data("kev", "known_exploited_vulnerabilities.json"));
    await expect(readKevCatalog(bytes.subarray(0, 5000))).rejects.toThrow("not JSON");
    await expect(readKevCatalog(Buffer.from(JSON.stringify({ title: "x" })))).rejects.toThrow("CISA's schema");
  });

  it("counts what a sync lists and delists", () => {
    const catalog = kevCatalogOf({
      catalogVersion: "1",
      dateReleased: "2025-01-01T00:00:00Z",
      vulnerabilities: [{ cveID: "CVE-2024-0001" }, { cveID: "CVE-2024-0002" }],
    });
    expect(kevChanges(new Set(["CVE-2024-0002", "CVE-2023-9999"]), catalog.entries)).toEqual({
      listed: 1,
      delisted: 1,
    });
  });
});

describe("staleness", () => {
  it("is stale past the days allowed", () => {
    const now = new Date("2026-11-24T12:00:00Z");
    expect(isSnapshotStale("2026-09-25", now, 60)).toBe(false);
    expect(isSnapshotStale("2026-09-24", now, 60)).toBe(true);
    expect(isSnapshotStale(null, now, 60)).toBe(true);
  });
});
