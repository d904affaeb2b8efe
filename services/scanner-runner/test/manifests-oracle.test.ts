// Our findings on every real project of shared/data/manifests against OSV-Scanner's (issue 8, docs/osv-oracle.md):
// ours are what a source scan makes (the real cdxgen, run by runCdxgen exactly as a scan runs it, its SBOM read by
// readSbom and matched over the vendored advisories); OSV-Scanner reads the same lockfiles and manifests offline
// with a database made from the same advisories. The findings, as (ecosystem, name, version, vulnerability) with
// vulnerabilities compared as alias groups, must be equal, or each difference is one of the reasoned rows below: a
// new difference, or an explained one that went away, fails the test.
import { beforeAll, describe, expect, it } from "@jest/globals";
import { chown, copyFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { osvScannerFindings, sharedDir } from "@sca/testkit";
import { normalisedName, packageOfPurl } from "@sca/purl-package";
import { readAdvisory, type Advisory } from "../src/domain/vulndb/advisory.ts";
import { AdvisoryIndex } from "../src/domain/vulndb/matcher.ts";
import { scanVerdictsOf } from "../src/domain/vulndb/scan-verdicts.ts";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";
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
    onlyOurs: ["Go|github.com/rogpeppe/go-internal|1.13.1|"],
    onlyOracle: [],
    why:
      "go.mod's `replace github.com/rogpeppe/go-internal => github.com/cli/go-internal v0.0.0-…`: cdxgen's go.mod " +
      "parser (go list refused) lists the replaced requirement beside its replacement, OSV-Scanner keeps only the " +
      "replacement, which is what is built. No advisory names rogpeppe/go-internal 1.13.1, so no finding differs",
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
const EXPLAINED_DIFFERENCES: ExplainedDifference[] = [];

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

/** The project's manifests scanned as a source scan scans a tree: the components' purls cdxgen's SBOM gives. */
async function inventoryOf(project: string): Promise<string[]> {
  const ws = await openWorkspace("", 65534);
  try {
    for (const file of await readdir(join(MANIFESTS, project))) {
      await copyFile(join(MANIFESTS, project, file), join(ws.tree, file));
      if (ws.runAs) await chown(join(ws.tree, file), ws.runAs.uid, ws.runAs.gid);
    }
    const sbom = await runCdxgen(ws, cdxgenOptions, () => {}, new AbortController().signal);
    return readSbom(sbom).components.map((c) => c.purl ?? "");
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
});
