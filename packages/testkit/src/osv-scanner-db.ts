// The offline database OSV-Scanner reads, made from the advisories we ship (shared/data/osv by default), so the
// oracle and our matcher judge the same records. OSV-Scanner v2 (its osv-scalibr `vulnmatch/osvlocal` matcher) reads
// `<local-db-path>/osv-scalibr/<ecosystem>/all.zip`, one zip of OSV JSON files per ecosystem, as osv.dev publishes
// them. The directory is built once per advisory set (keyed by the files' paths, sizes and mtimes) under the OS temp
// dir, atomically (a rename), so parallel test files share it and nothing is written to the repository.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { zipSync } from "fflate";
import { sharedDir } from "./shared-dir.ts";

/** The folder under the local-db path that OSV-Scanner v2 reads (osv-scalibr's osvlocal `setupLocalDBDirectory`). */
const SCANNER_SUBDIR = "osv-scalibr";
/** Bump when the layout written here changes, so an old cached directory is not reused. */
const LAYOUT = "2";
/**
 * Every ecosystem OSV-Scanner may look up (osv-schema's list, plus GIT for packages known only by commit or CPE).
 * Offline it fails the whole scan when one of them has no zip, so those we hold no advisories for get an empty one:
 * "no advisory" is exactly what our database says about them.
 */
// prettier-ignore
const KNOWN_ECOSYSTEMS = [
  "AlmaLinux", "Alpaquita", "Alpine", "Android", "Azure Linux", "BellSoft Hardened Containers", "Bioconductor",
  "Bitnami", "Chainguard", "CleanStart", "ConanCenter", "CRAN", "crates.io", "Debian", "Docker Hardened Images",
  "Echo", "FreeBSD", "GHC", "GIT", "GitHub Actions", "Go", "Hackage", "Hex", "Homebrew", "Julia", "Kubernetes",
  "Linux", "Mageia", "Maven", "MinimOS", "npm", "NuGet", "opam", "openEuler", "openSUSE", "OSS-Fuzz", "Packagist",
  "Photon OS", "Pub", "PyPI", "Red Hat", "Rocky Linux", "Root", "RubyGems", "SUSE", "SwiftURL", "TuxCare", "Ubuntu",
  "vcpkg", "VSCode", "Wolfi", "WordPress",
];

export interface OsvScannerDatabase {
  /** Pass as `--local-db-path` (or OSV_SCANNER_LOCAL_DB_CACHE_DIRECTORY). */
  path: string;
  /** Advisories per zip: the OSV ecosystem without its `:suffix` (`Debian:12` goes to `Debian`). */
  ecosystems: Record<string, number>;
  /** Files that were not a readable OSV record (not JSON, no id, no affected package). */
  skipped: string[];
}

async function jsonFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".json"))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

async function cacheKey(root: string, files: string[]): Promise<string> {
  const hash = createHash("sha256").update(`layout ${LAYOUT}\n`);
  for (const file of files) {
    const s = await stat(file);
    hash.update(`${relative(root, file)}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest("hex").slice(0, 16);
}

interface OsvRecord {
  id?: unknown;
  affected?: { package?: { ecosystem?: unknown } }[];
}

async function build(root: string, files: string[], target: string): Promise<void> {
  const zips = new Map<string, Record<string, Uint8Array>>(KNOWN_ECOSYSTEMS.map((e) => [e, {}]));
  const skipped: string[] = [];
  for (const file of files) {
    const bytes = await readFile(file);
    let record: OsvRecord;
    try {
      record = JSON.parse(bytes.toString("utf8")) as OsvRecord;
    } catch {
      skipped.push(relative(root, file));
      continue;
    }
    const ecosystems = new Set(
      (Array.isArray(record.affected) ? record.affected : [])
        .map((a) => a?.package?.ecosystem)
        .filter((e): e is string => typeof e === "string" && e !== "")
        .map((e) => e.replace(/:.*$/, "")),
    );
    if (typeof record.id !== "string" || ecosystems.size === 0) {
      skipped.push(relative(root, file));
      continue;
    }
    // An advisory naming packages of several ecosystems belongs in each of their zips, as on osv.dev.
    for (const ecosystem of ecosystems) {
      const entries = zips.get(ecosystem) ?? {};
      entries[`${record.id}.json`] = bytes;
      zips.set(ecosystem, entries);
    }
  }
  await mkdir(target, { recursive: true });
  const counts: Record<string, number> = {};
  for (const [ecosystem, entries] of zips) {
    const dir = join(target, SCANNER_SUBDIR, ecosystem);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "all.zip"), zipSync(entries, { level: 1 }));
    if (Object.keys(entries).length > 0) counts[ecosystem] = Object.keys(entries).length;
  }
  await writeFile(join(target, "summary.json"), JSON.stringify({ source: root, ecosystems: counts, skipped }, null, 2));
}

/**
 * Builds (or reuses) the offline OSV-Scanner database for the OSV records under `advisoriesDir` (any depth, one
 * record per `.json` file). `cacheDir` defaults to `$TMPDIR/sca-osv-scanner-db`.
 */
export async function osvScannerDatabase(
  opts: { advisoriesDir?: string; cacheDir?: string } = {},
): Promise<OsvScannerDatabase> {
  const root = opts.advisoriesDir ?? join(sharedDir(), "data", "osv");
  const files = await jsonFiles(root);
  const base = opts.cacheDir ?? join(tmpdir(), "sca-osv-scanner-db");
  const path = join(base, await cacheKey(root, files));
  if (!existsSync(join(path, "summary.json"))) {
    const partial = `${path}.partial-${process.pid}-${Date.now()}`;
    await build(root, files, partial);
    // Another process may have finished the same directory first: keep theirs.
    await rename(partial, path).catch(async (error: NodeJS.ErrnoException) => {
      await rm(partial, { recursive: true, force: true });
      if (!existsSync(join(path, "summary.json"))) throw error;
    });
  }
  const summary = JSON.parse(await readFile(join(path, "summary.json"), "utf8")) as {
    ecosystems: Record<string, number>;
    skipped: string[];
  };
  return { path, ecosystems: summary.ecosystems, skipped: summary.skipped };
}
