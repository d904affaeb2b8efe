// The Go release a module is built with, read from its go.mod's `go` and `toolchain` directives, becomes two
// components: the standard library (`pkg:golang/stdlib`, what the Go vulnerability database names `stdlib`) and the
// toolchain (`pkg:golang/toolchain`: the go command, compiler and linker, its `toolchain` advisories). cdxgen's go.mod
// reader skips both directives (docs/source-scans.md). The version is read as OSV-Scanner's go.mod extractor
// (osv-scalibr's gomod) reads it: the toolchain directive when there is one, else the go directive.
import { COMPONENT_SOURCE_PROPERTY, type SbomComponent } from "./inventory.ts";

/** What one go.mod says of the Go release that builds it. */
export interface GoModToolchain {
  /** The go.mod's path inside the tree. */
  path: string;
  /** `1.22.6`, `1.21`, `1.23rc1`: without `go` and without a toolchain name's `-suffix`. */
  version: string;
  /** The directive the version was read from, and its line (1-based). */
  directive: "go" | "toolchain";
  line: number;
}

/** golang.org/x/mod's GoVersionRE: a Go release or language version as a go directive may name it. */
const GO_VERSION = /^[1-9][0-9]*\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?([a-z]+[0-9]+)?$/;

/**
 * The Go release of one go.mod, or null when it names none. A `toolchain` directive names it as `go1.22.6` or
 * `go1.22.6-suffix` (read as 1.22.6); one naming no release (`toolchain default`) leaves the go directive's.
 * Directives inside a parenthesised block, repeated ones and malformed versions are not read (Go refuses such a file).
 */
export function goModToolchainOf(path: string, goMod: string): GoModToolchain | null {
  const read: Partial<Record<"go" | "toolchain", { version: string; line: number; count: number }>> = {};
  let inBlock = false;
  goMod.split("\n").forEach((text, index) => {
    const line = text.replace(/\/\/.*$/, "").trim();
    const [verb, arg, ...rest] = line.split(/\s+/);
    if (inBlock) {
      if (verb === ")") inBlock = false;
      return;
    }
    if (line.endsWith("(")) inBlock = true;
    if ((verb !== "go" && verb !== "toolchain") || arg === undefined || rest.length) return;
    const version = verb === "go" ? arg : arg.split("-")[0]!.replace(/^go/, "");
    const seen = read[verb];
    read[verb] = { version, line: index + 1, count: (seen?.count ?? 0) + 1 };
  });
  for (const directive of ["toolchain", "go"] as const) {
    const found = read[directive];
    if (found && found.count === 1 && GO_VERSION.test(found.version))
      return { path, version: found.version, directive, line: found.line };
  }
  return null;
}

/** How many go.mod paths a component's raw_data names. */
const PATHS_KEPT = 50;

const GO_PARTS = {
  stdlib: { type: "library", description: "The Go standard library" },
  toolchain: { type: "application", description: "The Go toolchain: the go command, compiler and linker" },
} as const;

/**
 * The standard library and toolchain components of the tree's go.mod files: one of each per Go release they name,
 * with the go.mod files (and lines) that name it as evidence. Go is distributed under BSD-3-Clause.
 */
export function goToolchainComponents(toolchains: readonly GoModToolchain[]): SbomComponent[] {
  const byVersion = new Map<string, GoModToolchain[]>();
  for (const t of toolchains) byVersion.set(t.version, [...(byVersion.get(t.version) ?? []), t]);
  return [...byVersion].flatMap(([version, named]) =>
    (["stdlib", "toolchain"] as const).map((name) => {
      const purl = `pkg:golang/${name}@${version}`;
      return {
        key: purl,
        refs: [],
        type: GO_PARTS[name].type,
        group: null,
        name,
        version,
        purl,
        cpe: null,
        hashes: [],
        declaredLicense: "BSD-3-Clause",
        concludedLicense: null,
        licenseIds: ["BSD-3-Clause"],
        supplier: null,
        author: null,
        description: GO_PARTS[name].description,
        scope: null,
        direct: null,
        depth: null,
        rawJson: JSON.stringify({
          purl,
          properties: [{ name: COMPONENT_SOURCE_PROPERTY, value: "go.mod" }],
          evidence: {
            occurrences: named.slice(0, PATHS_KEPT).map((t) => ({ location: t.path, line: t.line })),
          },
          fileCount: named.length,
        }),
      } satisfies SbomComponent;
    }),
  );
}
