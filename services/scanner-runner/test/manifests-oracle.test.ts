// Our findings on every real project of shared/data/manifests against OSV-Scanner's (issue 8, docs/osv-oracle.md):
// ours are what a source scan makes (the real cdxgen, run by runCdxgen exactly as a scan runs it, its SBOM read by
// readSbom and matched over the vendored advisories); OSV-Scanner reads the same lockfiles and manifests offline
// with a database made from the same advisories. The findings, as (ecosystem, name, version, vulnerability) with
// vulnerabilities compared as alias groups, must be equal, or each difference is one of the reasoned rows below: a
// new difference, or an explained one that went away, fails the test. OSV-Scanner reads a go.mod's Go release as the
// package `stdlib` (ScanGoModVersion), as a source scan inventories it; the last part compares the standard library
// on its own, for the go.mod directives and the SBOM spellings of a Go release.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { chown, copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { osvScannerFindings, sharedDir } from "@sca/testkit";
import { normalisedName, packageOfPurl } from "@sca/purl-package";
import { readAdvisory, type Advisory } from "../src/domain/vulndb/advisory.ts";
import { AdvisoryIndex } from "../src/domain/vulndb/matcher.ts";
import { scanVerdictsOf } from "../src/domain/vulndb/scan-verdicts.ts";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";
import { goToolchainComponents } from "../src/domain/sbom/go-toolchain.ts";
import { addComponents } from "../src/domain/sbom/inventory.ts";
import { readGoToolchains } from "../src/tools/go-toolchain.ts";
import { advisoryDocuments } from "../src/vulndb/advisory-source.ts";
import { VENDORED_SNAPSHOT } from "../src/vulndb/advisory-database.ts";
import { runCdxgen } from "../src/tools/cdxgen.ts";
import { openWorkspace } from "../src/sandbox/workspace.ts";

const MANIFESTS = join(sharedDir(), "data", "manifests");

/**
 * Per project, the files OSV-Scanner is given: the lockfile where there is one, else the manifest it reads; none: the
 * project's directory, for OSV-Scanner to pick what it recognises (it refuses a file it has no extractor for).
 */
const ORACLE_INPUTS: Record<string, string[]> = {
  dvna: [],
  flask: ["uv.lock"],
  "gh-cli": ["go.mod"],
  nodegoat: ["package-lock.json"],
  pygoat: ["requirements.txt"],
  ripgrep: ["Cargo.lock"],
  "spring-petclinic": ["pom.xml"],
};

/** Projects OSV-Scanner reads nothing from; our findings on them must be none too. */
const ORACLE_CANNOT_READ: Record<string, string> = {
  dvna:
    "a package.json without a lockfile: OSV-Scanner reads no package.json, and cdxgen without node_modules or a " +
    "lockfile inventories no dependency (every one is a range), so neither has a package to match",
};

interface ExplainedDifference {
  project: string;
  onlyIn: "ours" | "oracle";
  ecosystem: string;
  /** Normalised as the matcher does (normalisedName). */
  name: string;
  version: string;
  /** Our canonical vulnerability id, or "*" with `count` for every vulnerability of that package version. */
  vulnerability: string;
  count?: number;
  why: string;
}

/** Packages one side reads from the files and the other does not (keys without a vulnerability), with the reason. */
const PACKAGE_DIFFERENCES: Record<string, { onlyOurs: string[]; onlyOracle: string[]; why: string }> = {
  "gh-cli": {
    onlyOurs: ["Go|github.com/rogpeppe/go-internal|1.13.1|", "Go|toolchain|1.22.6|"],
    onlyOracle: [],
    why:
      "go.mod's `replace github.com/rogpeppe/go-internal => github.com/cli/go-internal v0.0.0-…`: cdxgen's go.mod " +
      "parser (go list refused) lists the replaced requirement beside its replacement, OSV-Scanner keeps only the " +
      "replacement, which is what is built. No advisory names rogpeppe/go-internal 1.13.1, so no finding differs. " +
      "The toolchain (go1.22.6, the release that builds the module, as stdlib) is a component of ours; OSV-Scanner " +
      "reads the Go release as stdlib only",
  },
  ripgrep: {
    onlyOurs: [],
    onlyOracle: ["crates.io|ripgrep|15.2.0|"],
    why:
      "the workspace's own crate: cdxgen makes it the SBOM's primary component (the project scanned, not one of its " +
      "components), OSV-Scanner reads it as one more Cargo.lock package; no advisory names ripgrep 15.2.0",
  },
};

/** Every difference between our findings and OSV-Scanner's, with the reason. */
const EXPLAINED_DIFFERENCES: ExplainedDifference[] = [
  {
    project: "gh-cli",
    onlyIn: "ours",
    ecosystem: "Go",
    name: "toolchain",
    version: "1.22.6",
    vulnerability: "*",
    count: 11,
    why:
      "the Go vulnerability database's `toolchain` advisories (cmd/go, the compiler, the linker) for go1.22.6, the " +
      "release gh-cli's toolchain directive builds it with: OSV-Scanner makes no toolchain package of a go.mod",
  },
];

/**
 * A finding's key. A Go module version is compared without its "v": OSV-Scanner's go.mod extractor drops it
 * (v0.28.0 becomes 0.28.0, as OSV's Go records spell versions), our inventory keeps it as go.mod and the purl spell it.
 */
const keyOf = (ecosystem: string, name: string, version: string, vulnerability: string) =>
  [
    ecosystem,
    normalisedName(ecosystem, name),
    ecosystem === "Go" ? version.replace(/^v/, "") : version,
    vulnerability,
  ].join("|");

let index: AdvisoryIndex;
/** Any advisory id or alias -> our canonical vulnerability id (the alias group). */
const canonical = new Map<string, string>();

beforeAll(async () => {
  const advisories: Advisory[] = [];
  for await (const doc of advisoryDocuments(VENDORED_SNAPSHOT, new AbortController().signal))
    if (doc.text) advisories.push(readAdvisory(JSON.parse(doc.text)));
  index = new AdvisoryIndex(advisories);
  for (const v of index.vulnerabilities.values()) for (const name of [v.id, ...v.aliases]) canonical.set(name, v.id);
});

const cdxgenOptions = {
  bin: process.env.CDXGEN_BIN ?? "",
  timeoutMs: 300_000,
  memoryMb: 2048,
  outputMaxBytes: 4 * 1024 ** 2,
  sbomMaxBytes: 50 * 1024 ** 2,
};

/**
 * The project's manifests scanned as a source scan scans a tree: the components' purls cdxgen's SBOM gives, with the
 * standard library and toolchain of the tree's go.mod files.
 */
async function inventoryOf(project: string): Promise<string[]> {
  const ws = await openWorkspace("", 65534);
  try {
    for (const file of await readdir(join(MANIFESTS, project))) {
      await copyFile(join(MANIFESTS, project, file), join(ws.tree, file));
      if (ws.runAs) await chown(join(ws.tree, file), ws.runAs.uid, ws.runAs.gid);
    }
    const signal = new AbortController().signal;
    const inventory = readSbom(await runCdxgen(ws, cdxgenOptions, () => {}, signal));
    addComponents(inventory, goToolchainComponents(await readGoToolchains(ws.tree, signal)));
    return inventory.components.map((c) => c.purl ?? "");
  } finally {
    await ws.remove();
  }
}

/** The versioned packages of the inventory, keyed as findings are (without a vulnerability). */
function ourPackages(purls: string[]): Set<string> {
  const keys = new Set<string>();
  for (const purl of purls) {
    const named = packageOfPurl(purl);
    if (named.kind === "package")
      keys.add(keyOf(named.package.ecosystem, named.package.name, named.package.version, ""));
  }
  return keys;
}

function ourFindings(purls: string[]): Set<string> {
  const { verdicts } = scanVerdictsOf(index, purls);
  const keys = new Set<string>();
  for (const { package: p, vulnerabilities } of verdicts)
    for (const v of vulnerabilities) keys.add(keyOf(p.ecosystem, p.name, p.version, v.vulnerabilityId));
  return keys;
}

async function oracleFindings(project: string) {
  const lockfiles = ORACLE_INPUTS[project]!.map((f) => join(MANIFESTS, project, f));
  const result = await osvScannerFindings(lockfiles.length ? { lockfiles } : { directory: join(MANIFESTS, project) }, {
    advisoriesDir: VENDORED_SNAPSHOT,
    goModStdlib: true,
  });
  const keys = new Set<string>();
  for (const f of result.findings) {
    const groups = [...new Set(f.ids.map((id) => canonical.get(id) ?? `unknown:${id}`))].sort();
    keys.add(keyOf(f.ecosystem, f.name, f.version, groups.join("+")));
  }
  const packages = new Set(
    result.packages.filter((p) => p.version).map((p) => keyOf(p.ecosystem, p.name, p.version, "")),
  );
  return { read: result.read, keys, packages };
}

function unexplained(project: string, onlyOurs: string[], onlyOracle: string[]) {
  const left = { ours: new Set(onlyOurs), oracle: new Set(onlyOracle) };
  const notSeen: ExplainedDifference[] = [];
  for (const d of EXPLAINED_DIFFERENCES.filter((e) => e.project === project)) {
    const prefix = keyOf(d.ecosystem, d.name, d.version, "");
    const hits = [...left[d.onlyIn]].filter((k) =>
      d.vulnerability === "*" ? k.startsWith(prefix) : k === prefix + d.vulnerability,
    );
    if (hits.length === 0 || (d.count !== undefined && hits.length !== d.count)) notSeen.push(d);
    for (const k of hits) left[d.onlyIn].delete(k);
  }
  return { onlyOurs: [...left.ours].sort(), onlyOracle: [...left.oracle].sort(), notSeen };
}

/** Each project's findings on both sides, as its comparison found them. */
const compared = new Map<string, { ours: Set<string>; oracle: Set<string> }>();

describe("our findings on every shared manifest project against OSV-Scanner on the same files", () => {
  it("covers every project of shared/data/manifests", async () => {
    const projects = (await readdir(MANIFESTS, { withFileTypes: true })).filter((e) => e.isDirectory());
    expect(projects.map((e) => e.name).sort()).toEqual(Object.keys(ORACLE_INPUTS).sort());
  });

  it.each(Object.keys(ORACLE_INPUTS))(
    "%s: equal findings, every difference explained",
    async (project) => {
      const inventory = await inventoryOf(project);
      const ours = ourFindings(inventory);
      const oracle = await oracleFindings(project);
      const packages = ourPackages(inventory);
      const onlyOurs = [...ours].filter((k) => !oracle.keys.has(k));
      const onlyOracle = [...oracle.keys].filter((k) => !ours.has(k));
      compared.set(project, { ours, oracle: oracle.keys });
      // VULNDB_ORACLE_REPORT=1 prints the figures docs/vulnerability-database.md records.
      if (process.env.VULNDB_ORACLE_REPORT)
        process.stdout.write(
          `${project}: ${oracle.read ? "read" : "unread"}, packages ${packages.size} oracle ${oracle.packages.size}, findings ours ${ours.size} oracle ${oracle.keys.size} differences ${onlyOurs.length + onlyOracle.length}\n`,
        );
      // The packages matched are the same too (every versioned one OSV-Scanner read), so equal findings are not
      // equal for want of input.
      const explained = PACKAGE_DIFFERENCES[project] ?? { onlyOurs: [], onlyOracle: [] };
      expect({
        onlyOurs: [...packages].filter((k) => !oracle.packages.has(k)),
        onlyOracle: [...oracle.packages].filter((k) => !packages.has(k)),
      }).toEqual({ onlyOurs: explained.onlyOurs, onlyOracle: explained.onlyOracle });
      expect(oracle.read).toBe(!ORACLE_CANNOT_READ[project]);
      expect(unexplained(project, onlyOurs, onlyOracle)).toEqual({ onlyOurs: [], onlyOracle: [], notSeen: [] });
    },
    300_000,
  );

  it("gh-cli: its toolchain directive's standard library, go1.22.6, has the same 58 advisories on both sides", () => {
    const stdlib = (keys: Set<string> | undefined) => [...(keys ?? [])].filter((k) => k.startsWith("Go|stdlib|"));
    const { ours, oracle } = compared.get("gh-cli") ?? {};
    expect(stdlib(ours)).toHaveLength(58);
    expect(stdlib(ours).every((k) => k.startsWith("Go|stdlib|1.22.6|"))).toBe(true);
    expect(stdlib(oracle).sort()).toEqual(stdlib(ours).sort());
  });
});

describe("Go's standard library against OSV-Scanner", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sca-go-stdlib-oracle-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The vulnerabilities our matcher finds for these purls' packages named `name`, as canonical ids. */
  const ourVulnerabilities = (purls: string[], name: string) =>
    scanVerdictsOf(index, purls)
      .verdicts.filter((v) => v.package.name === name)
      .flatMap((v) => v.vulnerabilities.map((x) => x.vulnerabilityId))
      .sort();
  /** OSV-Scanner's vulnerabilities (as our canonical ids) for its package `name` at the version it printed. */
  const oracleVulnerabilities = (
    findings: { name: string; version: string; ids: string[] }[],
    name: string,
    version: string,
  ) =>
    findings
      .filter((f) => f.name === name && f.version === version)
      .map((f) => [...new Set(f.ids.map((id) => canonical.get(id) ?? `unknown:${id}`))].sort().join("+"))
      .sort();

  // Each go.mod's directives, the release OSV-Scanner reads (and, for a two-number version, the .99 it prints for
  // it while matching the version as written), and ours.
  it.each([
    { directives: ["go 1.21"], release: "1.21", printed: "1.21.99" },
    { directives: ["go 1.21.0"], release: "1.21.0", printed: "1.21.0" },
    { directives: ["go 1.16"], release: "1.16", printed: "1.16.99" },
    { directives: ["go 1.23rc1"], release: "1.23rc1", printed: "1.23.99" },
    { directives: ["go 1.22.5", "toolchain go1.21.3-custom"], release: "1.21.3", printed: "1.21.3" },
    { directives: ["go 1.22.5", "toolchain go1.23rc1"], release: "1.23rc1", printed: "1.23.99" },
  ])("a go.mod saying $directives: stdlib $release, the same advisories", async ({ directives, release, printed }) => {
    const module = await mkdtemp(join(dir, "module-"));
    await writeFile(join(module, "go.mod"), ["module example.com/m", "", ...directives, ""].join("\n"));
    const purls = goToolchainComponents(await readGoToolchains(module, new AbortController().signal)).map(
      (c) => c.purl!,
    );
    expect(purls).toEqual([`pkg:golang/stdlib@${release}`, `pkg:golang/toolchain@${release}`]);
    const oracle = await osvScannerFindings(
      { lockfiles: [join(module, "go.mod")] },
      { advisoriesDir: VENDORED_SNAPSHOT, goModStdlib: true },
    );
    expect(oracle.packages).toEqual([{ ecosystem: "Go", name: "stdlib", version: printed }]);
    const ours = ourVulnerabilities(purls, "stdlib");
    expect(ours.length).toBeGreaterThan(0);
    expect(ours).toEqual(oracleVulnerabilities(oracle.findings, "stdlib", printed));
  });

  it("as SBOMs and binaries name it: stdlib (with or without v), go and toolchain purls", async () => {
    // Each component, the version OSV-Scanner prints for it, and whether its findings are OSV-Scanner's.
    const components = [
      // trivy's, for a Go binary's build info (what cdxgen gives for an image's binaries).
      { name: "stdlib", version: "v1.22.6", purl: "pkg:golang/stdlib@v1.22.6", printed: "v1.22.6", same: true },
      // osv-scalibr's name for a binary's Go release: stdlib for OSV-Scanner and for us.
      { name: "go", version: "1.20.1", purl: "pkg:golang/go@1.20.1", printed: "1.20.1", same: true },
      { name: "toolchain", version: "1.22.6", purl: "pkg:golang/toolchain@1.22.6", printed: "1.22.6", same: true },
      // A version field spelled as Go spells a release: OSV-Scanner reads the field, not the purl, and its Go
      // version parser cannot read `go1.21.3`, so every stdlib advisory from `introduced: 0` matches; ours reads
      // the purl's 1.21.3 (and would read go1.21.3 as 1.21.3).
      { name: "stdlib", version: "go1.21.3", purl: "pkg:golang/stdlib@1.21.3", printed: "go1.21.3", same: false },
    ];
    const sbom = join(dir, "go-releases.cdx.json");
    await writeFile(
      sbom,
      JSON.stringify({
        bomFormat: "CycloneDX",
        specVersion: "1.6",
        version: 1,
        components: components.map(({ name, version, purl }) => ({
          type: "library",
          "bom-ref": purl,
          name,
          version,
          purl,
        })),
      }),
    );
    // Read by our SBOM reader as an uploaded SBOM is: the purls stay as written.
    expect(readSbom(await readFile(sbom)).components.map((c) => c.purl)).toEqual(components.map((c) => c.purl));
    const oracle = await osvScannerFindings({ sbom }, { advisoriesDir: VENDORED_SNAPSHOT });
    for (const c of components) {
      const name = c.name === "toolchain" ? "toolchain" : "stdlib";
      const ours = ourVulnerabilities([c.purl], name);
      const theirs = oracleVulnerabilities(oracle.findings, name, c.printed);
      expect({ purl: c.purl, found: ours.length > 0 }).toEqual({ purl: c.purl, found: true });
      if (c.same) expect({ purl: c.purl, ours }).toEqual({ purl: c.purl, ours: theirs });
      else {
        // Every advisory of ours is OSV-Scanner's too; its others were fixed before 1.21.3.
        expect({ purl: c.purl, ours: ours.filter((v) => !theirs.includes(v)) }).toEqual({ purl: c.purl, ours: [] });
        expect(theirs.length).toBeGreaterThan(ours.length);
      }
    }
  });
});
