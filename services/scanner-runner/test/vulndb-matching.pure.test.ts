import { describe, expect, it } from "@jest/globals";
import { readAdvisory, MalformedAdvisory } from "../src/domain/vulndb/advisory.ts";
import { AdvisoryIndex, distinctPackages } from "../src/domain/vulndb/matcher.ts";
import { rateSeverity } from "../src/domain/vulndb/severity.ts";

const T = "2024-01-01T00:00:00Z";
type Events = Record<string, string>[];
const osv = (id: string, ecosystem: string, name: string, events: Events, extra: Record<string, unknown> = {}) => ({
  id,
  modified: T,
  affected: [
    {
      package: { ecosystem, name },
      ranges: [{ type: ecosystem === "npm" || ecosystem === "Go" ? "SEMVER" : "ECOSYSTEM", events }],
    },
  ],
  ...extra,
});
const indexOf = (...docs: unknown[]) => new AdvisoryIndex(docs.map(readAdvisory), new Date("2025-01-01T00:00:00Z"));
const ids = (index: AdvisoryIndex, ecosystem: string, name: string, version: string) => {
  const v = index.match({ ecosystem, name, version });
  return v.assessed ? v.vulnerabilities.map((x) => x.vulnerabilityId) : v.reason;
};

describe("range evaluation", () => {
  const index = indexOf(
    osv("GHSA-aaaa", "npm", "lodash", [{ introduced: "0" }, { fixed: "4.17.21" }]),
    osv("GHSA-bbbb", "npm", "left-pad", [{ introduced: "1.0.0" }, { last_affected: "1.3.0" }]),
    osv("GHSA-cccc", "npm", "multi", [
      { introduced: "1.0.0" },
      { fixed: "1.2.0" },
      { introduced: "2.0.0" },
      { fixed: "2.1.5" },
    ]),
    osv("GHSA-dddd", "npm", "limited", [{ introduced: "0" }, { limit: "3.0.0" }]),
  );

  it("the first fixed version never matches; the one before does; introduced 0 opens from the start", () => {
    expect(ids(index, "npm", "lodash", "4.17.21")).toEqual([]);
    expect(ids(index, "npm", "lodash", "4.17.20")).toEqual(["GHSA-aaaa"]);
    expect(ids(index, "npm", "lodash", "0.0.1")).toEqual(["GHSA-aaaa"]);
    expect(ids(index, "npm", "lodash", "4.17.21-beta.1")).toEqual(["GHSA-aaaa"]);
    expect(ids(index, "npm", "lodash", "5.0.0")).toEqual([]);
  });

  it("last_affected matches, the next version does not, below introduced does not", () => {
    expect(ids(index, "npm", "left-pad", "1.3.0")).toEqual(["GHSA-bbbb"]);
    expect(ids(index, "npm", "left-pad", "1.3.1")).toEqual([]);
    expect(ids(index, "npm", "left-pad", "0.9.0")).toEqual([]);
  });

  it("several introduced/fixed pairs in one range, and limit", () => {
    expect(
      ["0.9.0", "1.0.0", "1.1.9", "1.2.0", "1.9.0", "2.0.0", "2.1.4", "2.1.5"].map(
        (v) => ids(index, "npm", "multi", v).length,
      ),
    ).toEqual([0, 1, 1, 0, 0, 1, 1, 0]);
    expect(ids(index, "npm", "limited", "2.9.9")).toEqual(["GHSA-dddd"]);
    expect(ids(index, "npm", "limited", "3.0.0")).toEqual([]);
  });

  it("reports the fixed versions above the matched version", () => {
    const v = index.match({ ecosystem: "npm", name: "multi", version: "1.1.0" });
    expect(v).toEqual({
      assessed: true,
      vulnerabilities: [{ vulnerabilityId: "GHSA-cccc", fixedVersions: ["1.2.0", "2.1.5"] }],
    });
  });

  it("explicit versions lists match by equality", () => {
    const i = indexOf({
      id: "PYSEC-1",
      modified: T,
      affected: [{ package: { ecosystem: "PyPI", name: "Foo_Bar" }, versions: ["1.0", "1.1"] }],
    });
    expect(ids(i, "PyPI", "foo-bar", "1.1")).toEqual(["PYSEC-1"]);
    expect(ids(i, "PyPI", "FOO.bar", "1.0")).toEqual(["PYSEC-1"]);
    expect(ids(i, "PyPI", "foo-bar", "1.2")).toEqual([]);
  });

  it("Go: component versions with v match SEMVER ranges written without it; pseudo-versions; +incompatible", () => {
    const i = indexOf(
      osv("GO-2020-0001", "Go", "github.com/gin-gonic/gin", [{ introduced: "0" }, { fixed: "1.6.0" }]),
      osv("GO-2021-0002", "Go", "github.com/docker/docker", [{ introduced: "0" }, { fixed: "20.10.9+incompatible" }]),
      osv("GO-2022-0003", "Go", "golang.org/x/text", [{ introduced: "0" }, { fixed: "0.3.8" }]),
    );
    expect(ids(i, "Go", "github.com/gin-gonic/gin", "v1.5.0")).toEqual(["GO-2020-0001"]);
    expect(ids(i, "Go", "github.com/gin-gonic/gin", "v1.6.0")).toEqual([]);
    expect(ids(i, "Go", "github.com/docker/docker", "v20.10.8+incompatible")).toEqual(["GO-2021-0002"]);
    expect(ids(i, "Go", "github.com/docker/docker", "v20.10.9+incompatible")).toEqual([]);
    expect(ids(i, "Go", "golang.org/x/text", "v0.0.0-20210226172049-e3a6d0a6b3b2")).toEqual(["GO-2022-0003"]);
    expect(ids(i, "Go", "golang.org/x/text", "v0.3.8-0.20211004125949-5bd84dd9b33b")).toEqual(["GO-2022-0003"]);
  });

  it("Maven qualifiers: a milestone or RC of the fixed version is still affected; .RELEASE equals the release", () => {
    const i = indexOf(
      osv("GHSA-mvn1", "Maven", "org.springframework:spring-core", [{ introduced: "5.0.0" }, { fixed: "5.2.20" }]),
    );
    expect(ids(i, "Maven", "org.springframework:spring-core", "5.2.20-RC1").length).toBe(1);
    expect(ids(i, "Maven", "org.springframework:spring-core", "5.2.20.RELEASE")).toEqual([]);
    expect(ids(i, "Maven", "org.springframework:spring-core", "5.2.19.RELEASE").length).toBe(1);
    expect(ids(i, "Maven", "org.springframework:spring-core", "5.0.0-M1")).toEqual([]);
  });

  it("PEP 440: pre-releases of the fixed version are affected, post-releases of the last affected are not", () => {
    const i = indexOf(
      osv("PYSEC-2", "PyPI", "django", [{ introduced: "3.0" }, { fixed: "3.2.4" }]),
      osv("PYSEC-3", "PyPI", "requests", [{ introduced: "0" }, { last_affected: "2.0" }]),
    );
    expect(ids(i, "PyPI", "Django", "3.2.4rc1")).toEqual(["PYSEC-2"]);
    expect(ids(i, "PyPI", "django", "3.2.4")).toEqual([]);
    expect(ids(i, "PyPI", "django", "3.0a1")).toEqual([]);
    expect(ids(i, "PyPI", "requests", "2.0")).toEqual(["PYSEC-3"]);
    expect(ids(i, "PyPI", "requests", "2.0.post1")).toEqual([]);
  });

  it("a version the scheme cannot read matches only through an explicit list; an unknown ecosystem is reported", () => {
    expect(ids(index, "npm", "lodash", "not-semver")).toEqual([]);
    expect(index.match({ ecosystem: "Packagist", name: "laravel/framework", version: "7.12.0" })).toEqual({
      assessed: false,
      reason: "unknown-ecosystem",
    });
  });
});

describe("advisories", () => {
  it("a withdrawn advisory no longer matches", () => {
    const i = indexOf(osv("GHSA-gone", "npm", "lodash", [{ introduced: "0" }], { withdrawn: "2024-06-01T00:00:00Z" }));
    expect(ids(i, "npm", "lodash", "1.0.0")).toEqual([]);
    expect(i.advisoryCount).toBe(0);
  });

  it("aliases make one vulnerability, named by its CVE, with every other name", () => {
    const i = indexOf(
      osv("GHSA-1111", "PyPI", "jinja2", [{ introduced: "0" }, { fixed: "2.11.3" }], { aliases: ["CVE-2020-28493"] }),
      osv("PYSEC-2021-66", "PyPI", "jinja2", [{ introduced: "0" }, { fixed: "2.11.3" }], {
        aliases: ["CVE-2020-28493", "GHSA-1111"],
      }),
      osv("GHSA-2222", "PyPI", "jinja2", [{ introduced: "0" }, { fixed: "3.0.0" }]),
    );
    expect(ids(i, "PyPI", "jinja2", "2.10")).toEqual(["CVE-2020-28493", "GHSA-2222"]);
    expect(i.vulnerabilities.get("CVE-2020-28493")?.aliases).toEqual(["GHSA-1111", "PYSEC-2021-66"]);
    expect(i.vulnerabilities.size).toBe(2);
  });

  it("a malformed advisory is refused with a reason", () => {
    expect(() => readAdvisory({ id: "X-1" })).toThrow(MalformedAdvisory);
    expect(() => readAdvisory({ id: "X-1", modified: "yesterday" })).toThrow('"modified" is not an RFC 3339 time');
    expect(() => readAdvisory({ id: "X-1", modified: T, affected: [{ package: { name: "x" } }] })).toThrow(
      "no ecosystem",
    );
    expect(() => readAdvisory([])).toThrow("not a JSON object");
  });

  it("distinct package versions: one per (ecosystem, normalised name, version)", () => {
    const list = distinctPackages([
      { ecosystem: "PyPI", name: "Foo_Bar", version: "1.0" },
      { ecosystem: "PyPI", name: "foo-bar", version: "1.0" },
      { ecosystem: "PyPI", name: "foo-bar", version: "1.1" },
    ]);
    expect(list).toHaveLength(2);
  });
});

describe("severity", () => {
  it("is computed from the newest CVSS version's vector, the highest score within it", () => {
    const r = rateSeverity(
      [
        { type: "CVSS_V2", score: "AV:N/AC:L/Au:N/C:C/I:C/A:C" },
        { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N" },
        { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" },
      ],
      ["LOW"],
    );
    expect(r).toEqual({
      severity: "critical",
      score: 9.8,
      vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
      cvssVersion: 3,
    });
    expect(
      rateSeverity([{ type: "CVSS_V4", score: "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N" }], []),
    ).toMatchObject({ severity: "critical", score: 9.3, cvssVersion: 4 });
    expect(rateSeverity([{ type: "CVSS_V2", score: "AV:N/AC:L/Au:N/C:C/I:C/A:C" }], [])).toMatchObject({
      severity: "high",
      score: 10,
      cvssVersion: 2,
    });
    expect(
      rateSeverity([{ type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N" }], []),
    ).toMatchObject({ severity: "none", score: 0 });
  });

  it("falls back to the advisory's own rating, then unknown; a broken vector is not a score", () => {
    expect(rateSeverity([{ type: "CVSS_V3", score: "CVSS:3.1/garbage" }], ["MODERATE"])).toEqual({
      severity: "medium",
      score: null,
      vector: "",
      cvssVersion: 0,
    });
    expect(rateSeverity([], ["important", "low"])).toMatchObject({ severity: "high" });
    expect(rateSeverity([], [undefined, "whatever"])).toMatchObject({ severity: "unknown" });
  });

  it("an advisory's rating comes from its severity list, else database_specific", () => {
    const a = readAdvisory({ id: "GHSA-x", modified: T, database_specific: { severity: "HIGH" } });
    expect(a.severity.severity).toBe("high");
  });
});

describe("the vendored snapshot", () => {
  it("reads every advisory, and every range but two whose events are not versions of their ecosystem", async () => {
    const { advisoryDocuments } = await import("../src/vulndb/advisory-source.ts");
    const { VENDORED_SNAPSHOT } = await import("../src/vulndb/advisory-database.ts");
    const { prepareAffected } = await import("../src/domain/vulndb/affected.ts");
    const unreadable: string[] = [];
    let count = 0;
    for await (const doc of advisoryDocuments(VENDORED_SNAPSHOT, new AbortController().signal)) {
      const advisory = readAdvisory(JSON.parse(doc.text ?? ""));
      count++;
      for (const affected of advisory.affected)
        if (prepareAffected(affected).unreadableRanges > 0) unreadable.push(`${advisory.id} ${affected.name}`);
    }
    expect(count).toBe(6645);
    // PEP 440 has no reading of a date ("2019-09-12") or of "0.2.0-n653": such a range matches nothing.
    expect(unreadable.sort()).toEqual(["PYSEC-2019-125 steam", "PYSEC-2021-371 binderhub"]);
  });
});

describe("a scan's verdicts", () => {
  it("matches each distinct package version once, names each vulnerability once, counts what it cannot assess", async () => {
    const { scanVerdictsOf, scanVerdictsYielding } = await import("../src/domain/vulndb/scan-verdicts.ts");
    const index = indexOf(
      osv("GHSA-aaaa", "npm", "lodash", [{ introduced: "0" }, { fixed: "4.17.21" }], { aliases: ["CVE-2021-23337"] }),
      osv("GHSA-bbbb", "npm", "minimist", [{ introduced: "0" }, { fixed: "1.2.6" }]),
    );
    const result = scanVerdictsOf(index, [
      "pkg:npm/lodash@4.17.20",
      "pkg:npm/lodash@4.17.20",
      "pkg:npm/lodash@4.17.21",
      "pkg:npm/minimist@1.2.5",
      "pkg:composer/laravel/framework@7.12.0",
      "pkg:npm/no-version",
      null,
    ]);
    expect(result.verdicts).toEqual([
      {
        package: { ecosystem: "npm", name: "lodash", version: "4.17.20" },
        vulnerabilities: [{ vulnerabilityId: "CVE-2021-23337", fixedVersions: ["4.17.21"] }],
      },
      { package: { ecosystem: "npm", name: "lodash", version: "4.17.21" }, vulnerabilities: [] },
      {
        package: { ecosystem: "npm", name: "minimist", version: "1.2.5" },
        vulnerabilities: [{ vulnerabilityId: "GHSA-bbbb", fixedVersions: ["1.2.6"] }],
      },
    ]);
    expect(result.vulnerabilities.map((v) => [v.id, v.aliases])).toEqual([
      ["CVE-2021-23337", ["GHSA-aaaa"]],
      ["GHSA-bbbb", []],
    ]);
    // Matched while an ingestion runs (a turn for the event loop after every package version): the same verdicts.
    expect(
      await scanVerdictsYielding(
        index,
        [
          "pkg:npm/lodash@4.17.20",
          "pkg:npm/lodash@4.17.20",
          "pkg:npm/lodash@4.17.21",
          "pkg:npm/minimist@1.2.5",
          "pkg:composer/laravel/framework@7.12.0",
          "pkg:npm/no-version",
          null,
        ],
        1,
      ),
    ).toEqual(result);
    expect([...result.unknownEcosystems]).toEqual([["composer", 1]]);
    expect(result.unnamed).toBe(2);
  });

  it("batches the verdicts by package, each batch with the vulnerabilities it names", async () => {
    const { advisoryBatches } = await import("../src/domain/vulndb/scan-verdicts.ts");
    const verdict = (name: string, version: string, ...ids: string[]) => ({
      package: { ecosystem: "npm", name, version },
      vulnerabilities: ids.map((vulnerabilityId) => ({ vulnerabilityId, fixedVersions: [] })),
    });
    const vulnerabilities = ["V-1", "V-2", "V-3"].map((id) => ({ id }));
    const batches = advisoryBatches(
      [verdict("b", "1", "V-2"), verdict("a", "2", "V-1"), verdict("a", "1", "V-1"), verdict("c", "1")],
      vulnerabilities,
      2,
    );
    expect(batches).toEqual([
      { verdicts: [verdict("a", "1", "V-1"), verdict("a", "2", "V-1")], vulnerabilities: [{ id: "V-1" }] },
      { verdicts: [verdict("b", "1", "V-2"), verdict("c", "1")], vulnerabilities: [{ id: "V-2" }] },
    ]);
    expect(advisoryBatches([], vulnerabilities, 2)).toEqual([]);
  });
});

describe("re-matching held versions after a refresh", () => {
  it("gives every held version of a known ecosystem its complete verdict (clean ones too), none to an unknown one", async () => {
    const { refreshVerdictsOf } = await import("../src/domain/vulndb/scan-verdicts.ts");
    const index = indexOf(
      osv("GHSA-aaaa", "npm", "lodash", [{ introduced: "0" }, { fixed: "4.17.21" }], { aliases: ["CVE-2021-1"] }),
    );
    const result = refreshVerdictsOf(index, [
      { ecosystem: "npm", name: "lodash", version: "4.17.20" },
      { ecosystem: "npm", name: "lodash", version: "4.17.21" },
      { ecosystem: "Hackage", name: "text", version: "1.0" },
    ]);
    expect(result.verdicts).toEqual([
      {
        package: { ecosystem: "npm", name: "lodash", version: "4.17.20" },
        vulnerabilities: [{ vulnerabilityId: "CVE-2021-1", fixedVersions: ["4.17.21"] }],
      },
      { package: { ecosystem: "npm", name: "lodash", version: "4.17.21" }, vulnerabilities: [] },
    ]);
    expect(result.vulnerabilities.map((v) => v.id)).toEqual(["CVE-2021-1"]);
  });
});
