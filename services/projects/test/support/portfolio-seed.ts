// A large portfolio written straight into projects' tables with COPY (the test kit's projects fixture `portfolio`,
// for bench/dashboards.ts and bench/backup.ts): projects, one succeeded snapshot each with its components, edges,
// matched packages, findings and triage, the known scans and recorded matches, and the advisories (vulnerabilities,
// aliases, the runner's verdicts per package version), shaped as ingestion and RecordScanMatches write them: a
// finding names its component's row, identity and key, and a package version has the same vulnerabilities in every
// project (a component's findings are the first `findingsPerProject / componentsPerProject` of its package's
// verdicts). Deterministic (a fixed-seed generator), so two runs write the same portfolio. The dashboards' figures
// are not written: counting them is the daily job's work being measured.
import { createHash, randomUUID } from "node:crypto";
import type { MikroORM } from "@mikro-orm/postgresql";
import { bulkTransaction, type CopyValue } from "@sca/db";
import type { PortfolioSeed } from "@sca/testkit";

const POOL_PACKAGES = 5_000;
const VERSIONS_PER_PACKAGE = 4;
const POOL_VULNERABILITIES = 3_000;
const SEVERITIES = ["critical", "high", "high", "medium", "medium", "medium", "low", "low"] as const;
const RANK: Record<string, number> = { critical: 6, high: 5, medium: 4, low: 3 };
const LICENSES = [
  ["MIT", "allowed"],
  ["Apache-2.0", "allowed"],
  ["BSD-3-Clause", "allowed"],
  ["LGPL-2.1-only", "conditional"],
  ["GPL-3.0-only", "forbidden"],
] as const;
/** Projects written per transaction. */
const BATCH = 25;

/** The index of the `k`th vulnerability of pool package version `c`: distinct for distinct k below the pool. */
const vulnerabilityOf = (c: number, k: number) => (((c * 7919) % POOL_VULNERABILITIES) + k) % POOL_VULNERABILITIES;

/** A UUID derived from a name (the component identity is one per key across projects, as ingestion's). */
function nameUuid(name: string): string {
  const h = createHash("sha1").update(name).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function generator(seed: number) {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s % n;
  };
}

export async function seedPortfolio(
  orm: MikroORM,
  opts: PortfolioSeed,
): Promise<{ projectIds: string[]; packageNames: string[] }> {
  if (opts.findingsPerProject > opts.componentsPerProject * POOL_VULNERABILITIES)
    throw new RangeError("more findings a component than vulnerabilities in the pool");
  const next = generator(28);
  const packageNames = Array.from({ length: POOL_PACKAGES }, (_, i) => `pkg-${i}`);
  const vulnerabilities = Array.from({ length: POOL_VULNERABILITIES }, (_, i) => {
    const severity = SEVERITIES[i % SEVERITIES.length]!;
    return { id: `CVE-2099-${10000 + i}`, severity, kev: i % 97 === 0 };
  });
  // Verdicts per package version: as many as the most findings a component gets.
  const verdictsPerPackage = Math.min(
    POOL_VULNERABILITIES,
    Math.ceil(opts.findingsPerProject / Math.max(1, opts.componentsPerProject)),
  );
  const fixedOf = (c: number) => [`${(c % VERSIONS_PER_PACKAGE) + 2}.0.0`];
  await bulkTransaction(orm, async (tx) => {
    await tx.copyRows(
      "vulnerabilities",
      ["id", "aliases", "summary", "severity", "severity_rank", "known_exploited", "kev_due_date"],
      vulnerabilities.map((v) => [
        v.id,
        [`GHSA-seed-${v.id.slice(9)}`],
        "seeded",
        v.severity,
        RANK[v.severity]!,
        v.kev,
        v.kev ? "2026-01-15" : "",
      ]),
    );
    await tx.copyRows(
      "vulnerability_aliases",
      ["alias", "vulnerability_id"],
      vulnerabilities.flatMap((v) => [
        [v.id, v.id],
        [`GHSA-seed-${v.id.slice(9)}`, v.id],
      ]),
    );
    const verdicts: CopyValue[][] = [];
    for (let c = 0; c < POOL_PACKAGES * VERSIONS_PER_PACKAGE; c++)
      for (let k = 0; k < verdictsPerPackage; k++)
        verdicts.push([
          "npm",
          packageNames[Math.floor(c / VERSIONS_PER_PACKAGE)]!,
          `${(c % VERSIONS_PER_PACKAGE) + 1}.0.0`,
          vulnerabilities[vulnerabilityOf(c, k)]!.id,
          fixedOf(c),
        ]);
    await tx.copyRows(
      "package_vulnerabilities",
      ["ecosystem", "name", "version", "vulnerability_id", "fixed_versions"],
      verdicts,
    );
  });
  const projectIds: string[] = [];
  const now = Date.now();
  for (let first = 0; first < opts.projects; first += BATCH) {
    await bulkTransaction(orm, async (tx) => {
      const projects: CopyValue[][] = [];
      const snapshots: CopyValue[][] = [];
      const scans: CopyValue[][] = [];
      const matches: CopyValue[][] = [];
      const components: CopyValue[][] = [];
      const packages: CopyValue[][] = [];
      const edges: CopyValue[][] = [];
      const findings: CopyValue[][] = [];
      const triage: CopyValue[][] = [];
      for (let p = first; p < Math.min(first + BATCH, opts.projects); p++) {
        const team = opts.teams[p % opts.teams.length]!;
        const projectId = randomUUID();
        const scanId = randomUUID();
        const scannedAt = new Date(now - (p % 45) * 86_400_000);
        projectIds.push(projectId);
        projects.push([
          projectId,
          team.id,
          team.organizationId,
          `Project ${p}`,
          `project-${p}`,
          "succeeded",
          scannedAt,
          1,
        ]);
        snapshots.push([
          scanId,
          projectId,
          1,
          "cyclonedx-json",
          "1.6",
          `app-${p}`,
          "1.0.0",
          true,
          opts.componentsPerProject,
          opts.componentsPerProject,
          scannedAt,
        ]);
        scans.push([scanId, projectId, "succeeded", scannedAt, scannedAt, scannedAt]);
        matches.push([scanId, projectId, "seeded", opts.findingsPerProject, scannedAt]);
        const rows: { rowId: string; c: number; purl: string }[] = [];
        const chosen = new Set<number>();
        while (chosen.size < opts.componentsPerProject) chosen.add(next(POOL_PACKAGES * VERSIONS_PER_PACKAGE));
        let i = 0;
        for (const c of chosen) {
          const name = packageNames[Math.floor(c / VERSIONS_PER_PACKAGE)]!;
          const version = `${(c % VERSIONS_PER_PACKAGE) + 1}.0.0`;
          const purl = `pkg:npm/${name}@${version}`;
          const [license, category] = LICENSES[c % LICENSES.length]!;
          const rowId = randomUUID();
          rows.push({ rowId, c, purl });
          // A tree four wide under the root: the first four are direct.
          const depth = Math.floor(Math.log(3 * i + 4) / Math.log(4));
          components.push([
            rowId,
            scanId,
            projectId,
            nameUuid(purl),
            purl,
            name,
            version,
            purl,
            license,
            [license],
            category,
            i < 4,
            depth,
          ]);
          packages.push([rowId, scanId, projectId, "npm", name, version]);
          edges.push([randomUUID(), scanId, i < 4 ? null : rows[Math.floor((i - 4) / 4)]!.rowId, rowId]);
          i++;
        }
        for (let f = 0; f < opts.findingsPerProject; f++) {
          const row = rows[f % rows.length]!;
          const vulnerability = vulnerabilities[vulnerabilityOf(row.c, Math.floor(f / rows.length))]!;
          findings.push([
            randomUUID(),
            projectId,
            scanId,
            row.rowId,
            nameUuid(row.purl),
            row.purl,
            "npm",
            vulnerability.id,
            fixedOf(row.c),
            scannedAt,
          ]);
          triage.push([projectId, row.purl, vulnerability.id, scannedAt]);
        }
      }
      await tx.copyRows(
        "projects",
        ["id", "team_id", "organization_id", "name", "slug", "latest_scan_status", "last_scan_at", "scan_count"],
        projects,
      );
      await tx.copyRows(
        "inventory_snapshots",
        [
          "scan_id",
          "project_id",
          "attempt",
          "format",
          "spec_version",
          "primary_component_name",
          "primary_component_version",
          "graph_rooted",
          "component_count",
          "edge_count",
          "ingested_at",
        ],
        snapshots,
      );
      await tx.copyRows(
        "known_scans",
        ["scan_id", "project_id", "status", "scan_created_at", "completed_at", "changed_at"],
        scans,
      );
      await tx.copyRows(
        "inventory_components",
        [
          "id",
          "scan_id",
          "project_id",
          "component_id",
          "key",
          "name",
          "version",
          "purl",
          "license",
          "license_ids",
          "license_category",
          "direct",
          "depth",
        ],
        components,
      );
      await tx.copyRows(
        "snapshot_packages",
        ["component_row_id", "scan_id", "project_id", "ecosystem", "name", "version"],
        packages,
      );
      await tx.copyRows("inventory_edges", ["id", "scan_id", "from_component_id", "to_component_id"], edges);
      await tx.copyRows(
        "vulnerability_findings",
        [
          "id",
          "project_id",
          "scan_id",
          "component_row_id",
          "component_id",
          "component_key",
          "ecosystem",
          "vulnerability_id",
          "fixed_versions",
          "detected_at",
        ],
        findings,
      );
      await tx.copyRows(
        "scan_matches",
        ["scan_id", "project_id", "database_version", "finding_count", "recorded_at"],
        matches,
      );
      await tx.copyRows(
        "finding_triage",
        ["project_id", "component_key", "vulnerability_id", "first_detected_at"],
        triage,
      );
    });
  }
  return { projectIds, packageNames };
}
