// OSV-Scanner, the matching oracle (docs/osv-oracle.md): it runs offline (in a namespace with no network) on every
// real project and SBOM of shared/data against a database built from the advisories we ship, answers what the doc's
// table records for each input, applies OSV's range rules to records of our own, and leaves the repository untouched.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { osvScannerDatabase, osvScannerFindings, sharedDir } from "../src/index.ts";
import type { OsvScannerInput } from "../src/index.ts";

const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const DATA = join(sharedDir(), "data");

interface Expected {
  read: boolean;
  packages: number;
  findings: number;
  vulnerabilities: number;
}

/** The per-input table of docs/osv-oracle.md, which this test keeps true. */
async function documentedResults(): Promise<Map<string, Expected>> {
  const doc = await readFile(join(ROOT, "docs/osv-oracle.md"), "utf8");
  const rows = new Map<string, Expected>();
  for (const m of doc.matchAll(/^\| ((?:manifests|sbom)\/\S+) \| (yes|no) \| (\d+) \| (\d+) \| (\d+) \|$/gm)) {
    rows.set(m[1]!, { read: m[2] === "yes", packages: +m[3]!, findings: +m[4]!, vulnerabilities: +m[5]! });
  }
  return rows;
}

async function sharedInputs(): Promise<[string, OsvScannerInput][]> {
  const inputs: [string, OsvScannerInput][] = [];
  for (const e of await readdir(join(DATA, "manifests"), { withFileTypes: true })) {
    if (e.isDirectory()) inputs.push([`manifests/${e.name}`, { directory: join(DATA, "manifests", e.name) }]);
  }
  for (const format of ["cyclonedx", "spdx"]) {
    for (const name of await readdir(join(DATA, "sbom", format))) {
      inputs.push([`sbom/${format}/${name}`, { sbom: join(DATA, "sbom", format, name) }]);
    }
  }
  return inputs.sort(([a], [b]) => a.localeCompare(b));
}

// Without --ignored: test files running beside this one may write to ignored places (.data, caches) meanwhile.
const gitStatus = () => execFileSync("git", ["status", "--porcelain"], { cwd: ROOT, encoding: "utf8" });

describe("OSV-Scanner as the offline oracle", () => {
  let statusBefore: string;
  beforeAll(() => {
    statusBefore = gitStatus();
  });
  afterAll(() => {
    expect(gitStatus()).toBe(statusBefore);
  });

  it("builds its database from the shipped advisories, one zip per ecosystem, outside the repository", async () => {
    const db = await osvScannerDatabase();
    // The counts of shared/data/osv/SOURCES.md; the one GitHub advisory naming a NuGet and a Maven package is in both.
    expect(db.ecosystems).toEqual({ Go: 3000, Maven: 7, NuGet: 2, PyPI: 2294, "crates.io": 969, npm: 374 });
    expect(db.skipped).toEqual([]);
    expect(db.path.startsWith(ROOT)).toBe(false);
  });

  it("answers, offline, what docs/osv-oracle.md records for every shared project and SBOM", async () => {
    const documented = await documentedResults();
    const inputs = await sharedInputs();
    expect([...documented.keys()].sort()).toEqual(inputs.map(([name]) => name));
    const seen = new Map<string, Expected>();
    for (const [name, input] of inputs) {
      const result = await osvScannerFindings(input);
      expect({ name, networkIsolated: result.networkIsolated }).toEqual({ name, networkIsolated: true });
      if (!result.read) expect({ name, reason: result.reason }).toEqual({ name, reason: expect.any(String) });
      seen.set(name, {
        read: result.read,
        packages: result.packages.length,
        findings: result.findings.length,
        vulnerabilities: new Set(result.findings.map((f) => f.ids.join(","))).size,
      });
    }
    expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(documented));
    // Inputs known to carry vulnerable packages (deliberately vulnerable apps, old pinned stacks) must show some.
    for (const name of ["manifests/nodegoat", "manifests/pygoat", "manifests/gh-cli"]) {
      expect({ name, findings: seen.get(name)!.findings > 5 }).toEqual({ name, findings: true });
    }
  }, 180_000);

  it("reports each vulnerability once per package with its advisory ids and aliases", async () => {
    const result = await osvScannerFindings({ lockfiles: [join(DATA, "manifests/pygoat/requirements.txt")] });
    expect(result.sources).toEqual([{ path: join(DATA, "manifests/pygoat/requirements.txt"), type: "lockfile" }]);
    // Django==4.2 is pinned there; PYSEC-2023-61 affects 4.2 before 4.2.1 (CVE-2023-31047).
    expect(result.findings).toContainEqual({
      ecosystem: "PyPI",
      name: "django",
      version: "4.2",
      ids: ["PYSEC-2023-61"],
      aliases: ["CVE-2023-31047"],
    });
    const keys = result.findings.map((f) => `${f.name}@${f.version} ${f.ids.join(",")}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("reads a go.mod's Go release as stdlib only when asked, from its toolchain directive first", async () => {
    const goMod = { lockfiles: [join(DATA, "manifests/gh-cli/go.mod")] };
    const stdlib = (r: Awaited<ReturnType<typeof osvScannerFindings>>) => ({
      packages: r.packages.filter((p) => p.name === "stdlib"),
      findings: r.findings.filter((f) => f.name === "stdlib").length,
    });
    // OSV-Scanner's default: the go directive is a minimum language version, not the release that builds it.
    expect(stdlib(await osvScannerFindings(goMod))).toEqual({ packages: [], findings: 0 });
    // `go 1.22.5` and `toolchain go1.22.6`: the toolchain directive's release.
    expect(stdlib(await osvScannerFindings(goMod, { goModStdlib: true }))).toEqual({
      packages: [{ ecosystem: "Go", name: "stdlib", version: "1.22.6" }],
      findings: 58,
    });
  });

  describe("on advisories of our own", () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "sca-osv-oracle-test-"));
      await mkdir(join(dir, "advisories"));
      await mkdir(join(dir, "project"));
      await writeFile(
        join(dir, "project", "requirements.txt"),
        ["oracle-fixed==1.0", "oracle-last==2.0", "oracle-withdrawn==3.0", "oracle-aliased==1.5", ""].join("\n"),
      );
      const advisory = (id: string, name: string, events: Record<string, string>[], extra: object = {}) =>
        writeFile(
          join(dir, "advisories", `${id}.json`),
          JSON.stringify({
            schema_version: "1.6.0",
            id,
            modified: "2026-01-01T00:00:00Z",
            affected: [{ package: { ecosystem: "PyPI", name }, ranges: [{ type: "ECOSYSTEM", events }] }],
            ...extra,
          }),
        );
      await advisory("TEST-FIXED", "oracle-fixed", [{ introduced: "0" }, { fixed: "1.0" }]);
      await advisory("TEST-LAST", "oracle-last", [{ introduced: "0" }, { last_affected: "2.0" }]);
      await advisory("TEST-WITHDRAWN", "oracle-withdrawn", [{ introduced: "0" }], {
        withdrawn: "2026-01-02T00:00:00Z",
      });
      await advisory("TEST-ALIAS-A", "oracle-aliased", [{ introduced: "1.0" }], { aliases: ["CVE-2099-0001"] });
      await advisory("TEST-ALIAS-B", "oracle-aliased", [{ introduced: "1.0" }], { aliases: ["TEST-ALIAS-A"] });
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("matches last_affected, not the first fixed version nor a withdrawn record, and groups aliases", async () => {
      const result = await osvScannerFindings(
        { directory: join(dir, "project") },
        { advisoriesDir: join(dir, "advisories") },
      );
      expect(result.networkIsolated).toBe(true);
      expect(result.packages.map((p) => `${p.name}@${p.version}`)).toEqual([
        "oracle-aliased@1.5",
        "oracle-fixed@1.0",
        "oracle-last@2.0",
        "oracle-withdrawn@3.0",
      ]);
      expect(result.findings).toEqual([
        {
          ecosystem: "PyPI",
          name: "oracle-aliased",
          version: "1.5",
          ids: ["TEST-ALIAS-A", "TEST-ALIAS-B"],
          aliases: ["CVE-2099-0001"],
        },
        { ecosystem: "PyPI", name: "oracle-last", version: "2.0", ids: ["TEST-LAST"], aliases: [] },
      ]);
    });
  });
});
