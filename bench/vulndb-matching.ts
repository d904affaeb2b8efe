// Matching throughput of the scanner-runner's local vulnerability database (docs/vulnerability-database.md): the
// whole vendored OSV snapshot in the matcher, every real SBOM of ../shared/data/sbom read, its components named by
// purl and matched; OSV-Scanner (docs/osv-oracle.md) runs offline beside it on the same SBOM files with a database made
// from the same advisories. The matcher and the SBOM reader are the runner's own, through the fixtures it publishes
// for the test kit (fixturesOf). Runs offline (no portal needed): node bench/vulndb-matching.ts
import { readFileSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { packageOfPurl, type PackageVersion } from "@sca/purl-package";
import { fixturesOf, osvScannerFindings, sharedDir, type VulnerabilityMatcherFixture } from "@sca/testkit";
import { printTable } from "./table.ts";

const SBOM_DIR = process.env.BENCH_SBOM_DIR ?? join(sharedDir(), "data", "sbom");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);

const runner = await fixturesOf("scanner-runner");
const index0 = await runner.vulnerabilityMatcher();
const { buildMs } = index0;
let t: number;

const sboms: { name: string; path: string; readMs: number; packages: PackageVersion[] }[] = [];
for (const sub of ["cyclonedx", "spdx"]) {
  for (const file of (await readdir(join(SBOM_DIR, sub))).sort()) {
    const path = join(SBOM_DIR, sub, file);
    try {
      const bytes = await readFile(path);
      const readStarted = performance.now();
      const packages = runner.sbomPurls(bytes).flatMap((purl) => {
        const p = packageOfPurl(purl);
        return p?.kind === "package" ? [p.package] : [];
      });
      sboms.push({ name: `${sub}/${file}`, path, readMs: performance.now() - readStarted, packages });
    } catch {
      // Not an SBOM the reader takes: not part of this benchmark.
    }
  }
}

const rows: Record<string, string | number>[] = [];
const total = { components: 0, oursMs: 0, oursReadMs: 0, osvMs: 0, osvPeakKiB: 0 };
for (const sbom of sboms) {
  // Distinct (package version, vulnerability) pairs, counted as OSV-Scanner counts its findings.
  const findings = new Set<string>();
  t = performance.now();
  for (let r = 0; r < ROUNDS; r++) {
    // No verdict cached from the round before: the cold path a new database version sees.
    const index = coldIndex(index0);
    for (const p of sbom.packages) index.match(p);
  }
  const ms = (performance.now() - t) / ROUNDS;
  for (const p of sbom.packages) {
    const v = index0.match(p);
    if (v.assessed)
      for (const x of v.vulnerabilities) findings.add(`${p.ecosystem}|${p.name}|${p.version}|${x.vulnerabilityId}`);
  }
  // OSV-Scanner reads the file, loads the zips of the ecosystems it found and matches: its whole offline run.
  const osv = await osvScannerFindings({ sbom: sbom.path }, { advisoriesDir: index0.advisoriesDir });
  const n = sbom.packages.length;
  const perSecond = (wallMs: number) => Math.round(n / (wallMs / 1000));
  rows.push({
    sbom: sbom.name,
    components: n,
    "ours: findings": findings.size,
    "ours: match ms": ms,
    "ours: components/s": perSecond(ms),
    "ours: read+match ms": sbom.readMs + ms,
    "osv-scanner: findings": osv.read ? osv.findings.length : "not read",
    "osv-scanner: wall ms": osv.durationMs,
    "osv-scanner: components/s": osv.read ? perSecond(osv.durationMs) : "",
    "osv-scanner: peak MiB": Math.round(osv.peakRssKiB / 1024),
  });
  // Totals over the SBOMs both read (one OSV-Scanner cannot read answers in milliseconds, having done nothing).
  if (!osv.read) continue;
  total.components += n;
  total.oursMs += ms;
  total.oursReadMs += sbom.readMs + ms;
  total.osvMs += osv.durationMs;
  total.osvPeakKiB = Math.max(total.osvPeakKiB, osv.peakRssKiB);
}
const peakMiB = Math.round(process.resourceUsage().maxRSS / 1024);
rows.push({
  sbom: "all read by both",
  components: total.components,
  "ours: findings": "",
  "ours: match ms": total.oursMs,
  "ours: components/s": Math.round(total.components / (total.oursMs / 1000)),
  "ours: read+match ms": total.oursReadMs,
  "osv-scanner: findings": "",
  "osv-scanner: wall ms": total.osvMs,
  "osv-scanner: components/s": Math.round(total.components / (total.osvMs / 1000)),
  "osv-scanner: peak MiB": Math.round(total.osvPeakKiB / 1024),
});
printTable(
  `Vulnerability matching, ours beside OSV-Scanner ${osvVersion()} offline: ${index0.advisoryCount} advisories, ${index0.packageCount} package names (our index built in ${buildMs.toFixed(0)} ms), ours ${ROUNDS} rounds per SBOM (cold verdict cache), OSV-Scanner one run per SBOM (process wall time, database zips loaded per run); peak memory: ours ${peakMiB} MiB for the whole bench process (every parsed SBOM and advisory document besides the index), OSV-Scanner its process; target >= 20,000 components/s and faster than OSV-Scanner`,
  rows,
);

/** The OSV-Scanner version scripts/versions.sh pins (the one the harness runs). */
function osvVersion(): string {
  return (
    /^OSV_SCANNER_VERSION=(\S+)$/m.exec(
      readFileSync(join(import.meta.dirname, "../scripts/versions.sh"), "utf8"),
    )?.[1] ?? ""
  );
}

/** The built index with its verdict cache emptied, so every round evaluates the ranges again. */
function coldIndex(index: VulnerabilityMatcherFixture): VulnerabilityMatcherFixture {
  index.clearVerdicts();
  return index;
}
