// OSV-Scanner as the independent oracle for our matcher (docs/osv-oracle.md): the binary built by
// scripts/setup/osv-scanner.sh, run offline on a lockfile directory, lockfiles or one SBOM against a local database
// made from the same advisories we ship, its JSON answer reduced to (ecosystem, name, version, vulnerability).
// Where the machine allows it the process runs in a network namespace of its own, so an attempt to reach the network
// fails instead of quietly answering from osv.dev.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { copyFile, mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { osvScannerDatabase, type OsvScannerDatabase } from "./osv-scanner-db.ts";

export type OsvScannerInput =
  /** Every lockfile and manifest OSV-Scanner recognises directly in this directory (not recursive). */
  | { directory: string }
  /** These files, each read by the extractor its file name selects. */
  | { lockfiles: string[] }
  /** One CycloneDX (JSON/XML) or SPDX 2 (JSON/tag-value/RDF) document, whatever its file name. */
  | { sbom: string };

export interface OsvScannerOptions {
  /** OSV records to match against (default shared/data/osv); see osvScannerDatabase. */
  advisoriesDir?: string;
  /** Run inside a fresh network namespace when the machine allows it (default true). */
  isolateNetwork?: boolean;
  /**
   * Read a go.mod's Go release (its toolchain directive, else its go directive) as the package `stdlib`, as a Go
   * binary's is (default false, as OSV-Scanner's: its config's `ScanGoModVersion`, given here in a config file).
   */
  goModStdlib?: boolean;
}

export interface OsvScannerPackage {
  ecosystem: string;
  name: string;
  version: string;
}

export interface OsvScannerFinding extends OsvScannerPackage {
  /** The advisories of the database that matched, grouped by alias into one vulnerability; sorted. */
  ids: string[];
  /** Their aliases (CVE, GHSA, ...) that are not themselves among `ids`; sorted. */
  aliases: string[];
  /**
   * For a package read from an SBOM, `name` is only its purl's name (no namespace: a Maven artifact, the last segment
   * of a Go path, lower-cased for golang); this is the full name (`group:artifact`, the module path) when the matched
   * records name exactly one package that ends with it. Absent when they name none longer, or several (a record for
   * github.com/fluxcd/helm-controller/api and …/kustomize-controller/api leaves "api" ambiguous).
   */
  advisoryName?: string;
}

export interface OsvScannerResult {
  /** False when OSV-Scanner found nothing it can read in the input (`reason` says what it printed). */
  read: boolean;
  reason?: string;
  /** The files it read, with its own source type (`lockfile`, `sbom`, ...). */
  sources: { path: string; type: string }[];
  /** Every package it read, deduplicated, sorted. */
  packages: OsvScannerPackage[];
  /** One per package and vulnerability, deduplicated, sorted. */
  findings: OsvScannerFinding[];
  /** True when the run had no network at all (its own namespace, not even loopback). */
  networkIsolated: boolean;
  exitCode: number;
  durationMs: number;
  /** The scanner process's peak resident memory, sampled every 10 ms from /proc (0 where there is no /proc). */
  peakRssKiB: number;
  /** OSV-Scanner's log (stderr): which databases it loaded, what it skipped and why. */
  log: string;
}

const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

/** The binary scripts/setup/osv-scanner.sh builds: .tools/osv-scanner-<OSV_SCANNER_VERSION>/osv-scanner. */
export function osvScannerBinary(): string {
  const versions = readFileSync(join(ROOT, "scripts/versions.sh"), "utf8");
  const version = /^OSV_SCANNER_VERSION=(\S+)$/m.exec(versions)?.[1];
  const bin = join(ROOT, ".tools", `osv-scanner-${version}`, "osv-scanner");
  if (!version || !existsSync(bin)) throw new Error(`no osv-scanner at ${bin}: run bash scripts/setup/osv-scanner.sh`);
  return bin;
}

// One database per advisory directory per process: building it (or even checking its cache key) costs more than a scan.
const databases = new Map<string, Promise<OsvScannerDatabase>>();
function databaseFor(advisoriesDir: string | undefined): Promise<OsvScannerDatabase> {
  const key = advisoriesDir ? resolve(advisoriesDir) : "";
  let db = databases.get(key);
  if (!db) {
    db = osvScannerDatabase({ advisoriesDir });
    db.catch(() => databases.delete(key));
    databases.set(key, db);
  }
  return db;
}

let unshareWorks: boolean | undefined;
/** `unshare`'s options for a network namespace (plus a user namespace when not root), or undefined where refused. */
function networkNamespaceOptions(): string[] | undefined {
  const options = process.getuid?.() === 0 ? ["--net"] : ["--net", "--map-root-user"];
  unshareWorks ??= spawnSync("unshare", [...options, "true"], { stdio: "ignore" }).status === 0;
  return unshareWorks ? options : undefined;
}

/** The file name OSV-Scanner's SBOM extractors recognise for this document (they select by name, not content). */
async function sbomFileName(path: string): Promise<string> {
  const handle = await open(path);
  const head = Buffer.alloc(4096);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  await handle.close();
  const text = head.subarray(0, bytesRead).toString("utf8").trimStart();
  if (text.startsWith("<")) return /<rdf:RDF|spdx\.org\/rdf/.test(text) ? "sbom.spdx.rdf" : "sbom.cdx.xml";
  if (text.startsWith("{")) return /"bomFormat"\s*:\s*"CycloneDX"/.test(text) ? "sbom.cdx.json" : "sbom.spdx.json";
  // SPDX tag-value (`SPDXVersion: SPDX-2.x`), the one text form left.
  return "sbom.spdx";
}

/** The part of an OSV record in OSV-Scanner's JSON that names the packages it affects. */
interface ScannerRecord {
  id: string;
  affected?: { package?: { ecosystem?: string; name?: string } }[];
}

interface ScannerJson {
  results?: {
    source: { path: string; type: string };
    packages?: {
      package: { name: string; version: string; ecosystem: string };
      groups?: { ids: string[]; aliases?: string[] | null }[];
      vulnerabilities?: ScannerRecord[];
    }[];
  }[];
}

/** The process's resident-memory high-water mark (VmHWM, KiB), or 0 once it is gone or where /proc is absent. */
function residentPeakKiB(pid: number): number {
  try {
    return Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function run(
  command: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number; stderr: string; peakRssKiB: number }> {
  return new Promise((done) => {
    let peakRssKiB = 0;
    const child = execFile(
      command,
      args,
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        clearInterval(sampler);
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        done({ code, stderr, peakRssKiB });
      },
    );
    // `unshare` execs the scanner in place (same pid). The high-water mark only grows, so sampling it every 10 ms
    // misses at most the growth of the last 10 ms.
    const sample = () => {
      if (child.pid) peakRssKiB = Math.max(peakRssKiB, residentPeakKiB(child.pid));
    };
    const sampler = setInterval(sample, 10);
    sample();
  });
}

const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
const packageKey = (p: OsvScannerPackage) => `${p.ecosystem}\0${p.name}\0${p.version}`;

/**
 * The full name the matched records give the package (undefined when none is longer, or several fit): the one of
 * their affected packages, in its ecosystem, that is the package's name or ends with it after a "/" or ":"
 * (compared case-insensitively: golang purls are lower-cased).
 */
function advisoryNameOf(pkg: OsvScannerPackage, ids: string[], records: ScannerRecord[]): string | undefined {
  const short = pkg.name.toLowerCase();
  const names = new Set<string>();
  for (const record of records) {
    if (!ids.includes(record.id)) continue;
    for (const { package: affected } of record.affected ?? []) {
      const name = affected?.name;
      if (!name || affected.ecosystem?.split(":")[0] !== pkg.ecosystem) continue;
      const lower = name.toLowerCase();
      if (lower === short || lower.endsWith(`/${short}`) || lower.endsWith(`:${short}`)) names.add(name);
    }
  }
  const [only] = names;
  return names.size === 1 && only !== pkg.name ? only : undefined;
}

/** Runs OSV-Scanner offline on `input` and returns what it read and found, normalised. */
export async function osvScannerFindings(
  input: OsvScannerInput,
  options: OsvScannerOptions = {},
): Promise<OsvScannerResult> {
  const db = await databaseFor(options.advisoriesDir);
  const work = await mkdtemp(join(tmpdir(), "sca-osv-scanner-"));
  try {
    const targets: string[] = [];
    let staged: string | undefined;
    if ("directory" in input) targets.push(resolve(input.directory));
    else if ("lockfiles" in input) targets.push(...input.lockfiles.map((f) => `--lockfile=${resolve(f)}`));
    else {
      staged = join(work, await sbomFileName(input.sbom));
      await copyFile(input.sbom, staged);
      targets.push(`--lockfile=${staged}`);
    }
    const output = join(work, "result.json");
    const config = join(work, "osv-scanner.toml");
    if (options.goModStdlib) await writeFile(config, "ScanGoModVersion = true\n");
    const binary = osvScannerBinary();
    const args = [
      "scan",
      "source",
      // --offline = --offline-vulnerabilities (the local zips only) + --no-resolve (no registry or deps.dev look-ups).
      "--offline",
      `--local-db-path=${db.path}`,
      "--data-source=native",
      "--no-call-analysis=all",
      "--all-packages",
      "--all-vulns",
      "--format=json",
      `--output-file=${output}`,
      ...(options.goModStdlib ? [`--config=${config}`] : []),
      ...targets,
    ];
    const namespace = options.isolateNetwork === false ? undefined : networkNamespaceOptions();
    const started = performance.now();
    const { code, stderr, peakRssKiB } = namespace
      ? await run("unshare", [...namespace, binary, ...args], 120_000)
      : await run(binary, args, 120_000);
    const durationMs = Math.round(performance.now() - started);
    const base = { networkIsolated: namespace !== undefined, exitCode: code, durationMs, peakRssKiB, log: stderr };
    // 0: nothing found, 1: vulnerabilities found, 128: no package source it can read; 127 with "extraction failed"
    // when its parser rejects the file; anything else is a failure of the run itself.
    const lines = stderr.trim().split("\n");
    const unreadable =
      code === 128
        ? lines.slice(-1)[0]
        : code === 127 && /extraction failed on specified lockfile/.test(stderr)
          ? lines.find((l) => l.startsWith("Error during extraction"))
          : undefined;
    if (unreadable !== undefined) {
      // Name the caller's file, not the staged copy (OSV-Scanner prints it without its leading slash).
      const reason = staged && "sbom" in input ? unreadable.replace(staged.slice(1), basename(input.sbom)) : unreadable;
      return { ...base, read: false, reason, sources: [], packages: [], findings: [] };
    }
    if ((code !== 0 && code !== 1) || !existsSync(output)) {
      throw new Error(`osv-scanner failed (exit ${code}):\n${stderr}`);
    }
    const answer = JSON.parse(await readFile(output, "utf8")) as ScannerJson;
    const packages = new Map<string, OsvScannerPackage>();
    const findings = new Map<string, OsvScannerFinding>();
    for (const result of answer.results ?? []) {
      for (const { package: p, groups, vulnerabilities } of result.packages ?? []) {
        const pkg = { ecosystem: p.ecosystem, name: p.name, version: p.version };
        packages.set(packageKey(pkg), pkg);
        for (const group of groups ?? []) {
          const ids = [...new Set(group.ids)].sort();
          const aliases = [...new Set(group.aliases ?? [])].filter((a) => !ids.includes(a)).sort();
          const advisoryName = advisoryNameOf(pkg, ids, vulnerabilities ?? []);
          const finding = { ...pkg, ids, aliases, ...(advisoryName ? { advisoryName } : {}) };
          findings.set(`${packageKey(pkg)}\0${advisoryName ?? ""}\0${ids.join(",")}`, finding);
        }
      }
    }
    return {
      ...base,
      read: true,
      sources: (answer.results ?? []).map((r) => ({
        path: "sbom" in input ? resolve(input.sbom) : r.source.path,
        type: r.source.type,
      })),
      packages: [...packages.values()].sort(byKey(packageKey)),
      findings: [...findings.values()].sort(byKey((f) => `${packageKey(f)}\0${f.ids.join(",")}`)),
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
