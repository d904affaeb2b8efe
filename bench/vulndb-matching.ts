// Matching throughput of the scanner-runner's local vulnerability database (docs/vulnerability-database.md): the
// whole vendored OSV snapshot in the matcher, every real SBOM of ../shared/data/sbom read, its components named by
// purl and matched. Runs offline (no portal needed): node bench/vulndb-matching.ts
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readAdvisory, type Advisory } from "../services/scanner-runner/src/domain/vulndb/advisory.ts";
import { packageOfPurl, type PackageVersion } from "@sca/purl-package";
import { AdvisoryIndex } from "../services/scanner-runner/src/domain/vulndb/matcher.ts";
import { readSbom } from "../services/scanner-runner/src/domain/sbom/read-sbom.ts";
import { advisoryDocuments } from "../services/scanner-runner/src/vulndb/advisory-source.ts";
import { VENDORED_SNAPSHOT } from "../services/scanner-runner/src/vulndb/advisory-database.ts";
import { sharedDir } from "@sca/testkit";
import { printTable } from "./table.ts";

const SBOM_DIR = process.env.BENCH_SBOM_DIR ?? join(sharedDir(), "data", "sbom");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);

const advisories: Advisory[] = [];
for await (const doc of advisoryDocuments(VENDORED_SNAPSHOT, new AbortController().signal))
  if (doc.text) advisories.push(readAdvisory(JSON.parse(doc.text)));
let t = performance.now();
const index0 = new AdvisoryIndex(advisories);
const buildMs = performance.now() - t;

const sboms: { name: string; packages: PackageVersion[] }[] = [];
for (const sub of ["cyclonedx", "spdx"]) {
  for (const file of (await readdir(join(SBOM_DIR, sub))).sort()) {
    try {
      const inv = readSbom(await readFile(join(SBOM_DIR, sub, file)));
      const packages = inv.components.flatMap((c) => {
        const p = c.purl ? packageOfPurl(c.purl) : null;
        return p?.kind === "package" ? [p.package] : [];
      });
      sboms.push({ name: `${sub}/${file}`, packages });
    } catch {
      // Not an SBOM the reader takes: not part of this benchmark.
    }
  }
}

const rows: Record<string, string | number>[] = [];
let totalComponents = 0;
let totalMs = 0;
for (const sbom of sboms) {
  let findings = 0;
  t = performance.now();
  for (let r = 0; r < ROUNDS; r++) {
    // No verdict cached from the round before: the cold path a new database version sees.
    const index = coldIndex(index0);
    findings = 0;
    for (const p of sbom.packages) {
      const v = index.match(p);
      if (v.assessed) findings += v.vulnerabilities.length;
    }
  }
  const ms = (performance.now() - t) / ROUNDS;
  totalComponents += sbom.packages.length;
  totalMs += ms;
  rows.push({
    sbom: sbom.name,
    components: sbom.packages.length,
    findings,
    "ms (cold cache)": ms,
    "components/s": Math.round(sbom.packages.length / (ms / 1000)),
  });
}
rows.push({
  sbom: "all",
  components: totalComponents,
  findings: "",
  "ms (cold cache)": totalMs,
  "components/s": Math.round(totalComponents / (totalMs / 1000)),
});
const rssMiB = Math.round(process.memoryUsage().rss / 2 ** 20);
printTable(
  `Vulnerability matching: ${index0.advisoryCount} advisories, ${index0.packageCount} package names (index built in ${buildMs.toFixed(0)} ms), ${ROUNDS} rounds per SBOM, resident memory ${rssMiB} MiB, target >= 20,000 components/s`,
  rows,
);

/** The built index with its verdict cache emptied, so every round evaluates the ranges again. */
function coldIndex(index: AdvisoryIndex): AdvisoryIndex {
  index.clearVerdicts();
  return index;
}
