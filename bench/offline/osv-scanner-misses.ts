// Why OSV-Scanner (v2.6.0, offline) leaves out a finding our matcher makes, read from the advisory records themselves:
// - `git-range-first`: its local matcher (osv-scalibr's enricher/vulnmatch/osvlocal, rangeAffectsVersion) gives up
//   at the first range of an affected entry that is neither ECOSYSTEM nor SEMVER, so an entry listing its GIT range
//   first (PYSEC records do: PYSEC-2012-16 for pycrypto, introduced 0, fixed 2.6) matches only the versions it
//   enumerates, and pycrypto 2.0.0 (not "2.0") goes unreported although the ECOSYSTEM range holds it;
// - `go-path-case`: its purl parser lower-cases golang purls, so a module path with capitals
//   (github.com/0xJacky/nginx-ui) is looked up as one no advisory names (docs/osv-oracle.md, constellation);
// - `go-module-named-go`: it names a Go package read from an SBOM by its purl's last segment, and turns a package
//   named `go` into the standard library (osv-scalibr's osvutil), so github.com/coinbase/x402/go is looked up as
//   `stdlib`;
// - `name-spelling`: the advisory spells the name another way the ecosystem holds equal (PyPI's PEP 503 `jw.util`
//   for `jw-util`, NuGet's case-insensitive `Newtonsoft.Json`), and it compares the advisory's spelling exactly.
// A finding of ours neither rule explains is a difference to look into.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface OsvRange {
  type: string;
}
interface OsvAffected {
  package?: { ecosystem?: string; name?: string };
  ranges?: OsvRange[];
  versions?: string[];
}
interface OsvRecord {
  id: string;
  aliases?: string[];
  affected?: OsvAffected[];
}

export type MissReason = "git-range-first" | "go-path-case" | "go-module-named-go" | "name-spelling";

/** A package name as its ecosystem compares names (PEP 503 for PyPI, case-insensitive for NuGet). */
function comparable(ecosystem: string, name: string): string {
  if (ecosystem === "PyPI") return name.toLowerCase().replace(/[-_.]+/g, "-");
  return ecosystem === "NuGet" ? name.toLowerCase() : name;
}

/** The vendored advisories (laid out <ecosystem>/<id>.json), by their ids and aliases. */
export function advisoriesById(dir: string): Map<string, OsvRecord[]> {
  const byId = new Map<string, OsvRecord[]>();
  for (const ecosystem of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()))
    for (const file of readdirSync(join(dir, ecosystem.name)).filter((f) => f.endsWith(".json"))) {
      const record = JSON.parse(readFileSync(join(dir, ecosystem.name, file), "utf8")) as OsvRecord;
      for (const id of [record.id, ...(record.aliases ?? [])]) byId.set(id, [...(byId.get(id) ?? []), record]);
    }
  return byId;
}

const withoutV = (v: string) => v.replace(/^v/, "");

/** Why OSV-Scanner does not report `ids` for this package version, or undefined when no known reason holds. */
export function whyOsvScannerMisses(
  advisories: Map<string, OsvRecord[]>,
  pkg: { ecosystem: string; name: string; version: string },
  ids: Iterable<string>,
): MissReason | undefined {
  const entries = [...ids]
    .flatMap((id) => advisories.get(id) ?? [])
    .flatMap((r) => r.affected ?? [])
    .filter(
      (a) =>
        a.package?.ecosystem === pkg.ecosystem &&
        comparable(pkg.ecosystem, a.package.name ?? "") === comparable(pkg.ecosystem, pkg.name),
    );
  if (entries.length === 0) return undefined;
  if (pkg.ecosystem === "Go" && pkg.name !== pkg.name.toLowerCase()) return "go-path-case";
  if (pkg.ecosystem === "Go" && pkg.name.split("/").pop() === "go") return "go-module-named-go";
  if (entries.every((a) => a.package?.name !== pkg.name)) return "name-spelling";
  const listed = (a: OsvAffected) => (a.versions ?? []).some((v) => withoutV(v) === withoutV(pkg.version));
  const stopsAtGit = (a: OsvAffected) => {
    const first = a.ranges?.[0]?.type;
    return first !== undefined && first !== "ECOSYSTEM" && first !== "SEMVER";
  };
  return entries.every((a) => stopsAtGit(a) && !listed(a)) ? "git-range-first" : undefined;
}
