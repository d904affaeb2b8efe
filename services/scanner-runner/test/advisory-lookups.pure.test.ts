// The advisory database asked by package and by name (AdvisoryLookupService's answers), checked against the OSV
// documents themselves: the vendored snapshot read as plain JSON, and small records where a rule needs one.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { normalisedName } from "@sca/purl-package";
import { readAdvisory } from "../src/domain/vulndb/advisory.ts";
import { AdvisoryIndex } from "../src/domain/vulndb/matcher.ts";

const T = "2024-01-01T00:00:00Z";
const NOW = new Date("2025-01-01T00:00:00Z");
const V3 = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H";
const V3_LOWER = "CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:N/A:H";
const V4 = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:H/SC:N/SI:N/SA:N";
const osv = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  modified: T,
  affected: [{ package: { ecosystem: "PyPI", name: "Django_Thing" }, versions: ["1.0"] }],
  ...extra,
});
const indexOf = (...docs: unknown[]) => new AdvisoryIndex(docs.map(readAdvisory), NOW);

describe("lookups by package and by name", () => {
  const index = indexOf(
    osv("GHSA-aaaa-bbbb-cccc", {
      aliases: ["CVE-2024-0002"],
      summary: "the GHSA record",
      severity: [
        { type: "CVSS_V4", score: V4 },
        { type: "CVSS_V3", score: V3_LOWER },
      ],
    }),
    osv("PYSEC-2024-1", { aliases: ["CVE-2024-0002"], severity: [{ type: "CVSS_V3", score: V3 }] }),
    osv("PYSEC-2024-2", { severity: [{ type: "CVSS_V2", score: "AV:N/AC:L/Au:N/C:P/I:P/A:P" }] }),
    osv("PYSEC-2024-3", { withdrawn: "2024-06-01T00:00:00Z" }),
  );

  it("answers every vulnerability naming the package once, by canonical id, under any spelling of its name", () => {
    expect(index.vulnerabilitiesOf("PyPI", "django-thing")).toEqual(["CVE-2024-0002", "PYSEC-2024-2"]);
    expect(index.vulnerabilitiesOf("PyPI", "Django.Thing")).toEqual(["CVE-2024-0002", "PYSEC-2024-2"]);
    expect(index.vulnerabilitiesOf("npm", "django-thing")).toEqual([]);
  });

  it("finds a vulnerability by any name ignoring case, spelt as the advisories spell it", () => {
    const named = index.vulnerabilityNamed("ghsa-AAAA-bbbb-cccc");
    expect(named?.name).toBe("GHSA-aaaa-bbbb-cccc");
    expect(named?.vulnerability).toMatchObject({
      id: "CVE-2024-0002",
      aliases: ["GHSA-aaaa-bbbb-cccc", "PYSEC-2024-1"],
      summary: "the GHSA record",
    });
    expect(index.vulnerabilityNamed("cve-2024-0002")?.name).toBe("CVE-2024-0002");
    // Withdrawn advisories are not in force: neither matched nor looked up.
    expect(index.vulnerabilityNamed("PYSEC-2024-3")).toBeNull();
    expect(index.vulnerabilityNamed("CVE-1999-0001")).toBeNull();
  });

  it("keeps the highest CVSS v3 rating beside a severity rated by v4, and none for v2 alone", () => {
    const v = index.vulnerabilityNamed("CVE-2024-0002")!.vulnerability;
    expect(v.severity).toMatchObject({ cvssVersion: 4, vector: V4 });
    // FIRST's calculator: AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H is 7.5, the same with AC:H 5.9.
    expect(v.cvss3).toMatchObject({ score: 7.5, vector: V3 });
    expect(index.vulnerabilityNamed("PYSEC-2024-2")!.vulnerability.cvss3).toBeNull();
  });
});

describe("the vendored snapshot", () => {
  it("answers each package its documents name and each name they carry, as the documents say", async () => {
    const { VENDORED_SNAPSHOT } = await import("../src/vulndb/advisory-database.ts");
    interface OsvDocument {
      id: string;
      aliases?: string[];
      withdrawn?: string;
      affected?: { package?: { ecosystem: string; name: string } }[];
    }
    const documents: OsvDocument[] = [];
    for (const entry of await readdir(VENDORED_SNAPSHOT, { withFileTypes: true }))
      if (entry.isDirectory())
        for (const file of await readdir(join(VENDORED_SNAPSHOT, entry.name)))
          documents.push(JSON.parse(await readFile(join(VENDORED_SNAPSHOT, entry.name, file), "utf8")) as OsvDocument);
    const index = new AdvisoryIndex(documents.map(readAdvisory), NOW);
    const inForce = documents.filter((d) => !d.withdrawn || new Date(d.withdrawn) > NOW);
    expect(inForce.length).toBeGreaterThan(6000);
    const problems: string[] = [];
    const expected = new Map<string, Set<string>>();
    for (const d of inForce) {
      const v = index.vulnerabilityNamed(d.id.toLowerCase())?.vulnerability;
      if (!v) {
        problems.push(`${d.id} not found`);
        continue;
      }
      for (const alias of d.aliases ?? [])
        if (index.vulnerabilityNamed(alias)?.vulnerability.id !== v.id) problems.push(`${alias} is not ${v.id}`);
      for (const a of d.affected ?? []) {
        if (!a.package) continue;
        const key = `${a.package.ecosystem}\u0000${normalisedName(a.package.ecosystem, a.package.name)}`;
        expected.set(key, (expected.get(key) ?? new Set()).add(v.id));
      }
    }
    expect(problems).toEqual([]);
    for (const [key, ids] of expected) {
      const [ecosystem, name] = key.split("\u0000") as [string, string];
      const answered = index.vulnerabilitiesOf(ecosystem, name);
      if (answered.join() !== [...ids].sort().join())
        problems.push(`${key}: ${answered.join()} for ${[...ids].join()}`);
    }
    expect(problems).toEqual([]);
    expect(expected.size).toBeGreaterThan(2000);
    // npm lodash: the six advisories of the snapshot naming it (grep -l '"lodash"' data/osv/npm/*.json).
    expect(index.vulnerabilitiesOf("npm", "lodash")).toEqual([
      "CVE-2018-16487",
      "CVE-2018-3721",
      "CVE-2019-10744",
      "CVE-2020-8203",
      "CVE-2021-23337",
      "NSWG-ECO-516",
    ]);
  });
});
