// Where each package registry answers "which version is the latest" and how its answer reads (docs/enrichment-feeds.md,
// "Currency"): the URL of one package's document under the registry's configured base, and the latest version (and
// its release day, when the registry says) read from that document. The shapes are the registries' public APIs:
// npm's packument, PyPI's JSON API, crates.io's API v1, the Go module proxy's @latest, NuGet's flat container,
// RubyGems' latest.json, a Maven repository's maven-metadata.xml.
import { ecosystemBase } from "@sca/purl-package";
import { XMLParser } from "fast-xml-parser";
import { nugetScheme } from "@sca/version-order";

/** The registries a currency lookup may ask, by the key naming their base URL. */
export type Registry = "npm" | "pypi" | "crates" | "go" | "nuget" | "rubygems" | "maven";

export type RegistryBases = Record<Registry, string>;

/** The OSV ecosystem of a package (as @sca/purl-package names it) -> the registry that publishes it. */
const REGISTRY_OF: Readonly<Record<string, Registry>> = {
  npm: "npm",
  PyPI: "pypi",
  "crates.io": "crates",
  Go: "go",
  NuGet: "nuget",
  RubyGems: "rubygems",
  Maven: "maven",
};

export const registryOf = (ecosystem: string): Registry | null => REGISTRY_OF[ecosystemBase(ecosystem)] ?? null;

export interface LatestRelease {
  version: string;
  /** YYYY-MM-DD, null when the registry's document does not date it. */
  releaseDate: string | null;
}

const trimmed = (base: string) => base.replace(/\/+$/, "");

/** The Go module proxy's case encoding: an upper-case letter is "!" and its lower case. */
export const goProxyEscaped = (path: string): string => path.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);

/** The document naming the package's latest version, or null when the name cannot be one of that registry's. */
export function latestUrlOf(registry: Registry, base: string, name: string): string | null {
  const b = trimmed(base);
  switch (registry) {
    case "npm":
      // A scoped name keeps its "@" and escapes its "/" (as npm's own client asks).
      return `${b}/${name.startsWith("@") ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name)}`;
    case "pypi":
      return `${b}/pypi/${encodeURIComponent(name)}/json`;
    case "crates":
      return `${b}/api/v1/crates/${encodeURIComponent(name)}`;
    case "go":
      return `${b}/${goProxyEscaped(name).split("/").map(encodeURIComponent).join("/")}/@latest`;
    case "nuget":
      return `${b}/v3-flatcontainer/${encodeURIComponent(name.toLowerCase())}/index.json`;
    case "rubygems":
      return `${b}/api/v1/versions/${encodeURIComponent(name)}/latest.json`;
    case "maven": {
      const [group, artifact, ...rest] = name.split(":");
      if (!group || !artifact || rest.length) return null;
      return `${b}/${group.split(".").map(encodeURIComponent).join("/")}/${encodeURIComponent(artifact)}/maven-metadata.xml`;
    }
  }
}

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);
const dayOf = (v: unknown): string | null => {
  const t = text(v);
  if (!t) return null;
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().slice(0, 10);
};
const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

const xml = new XMLParser({ ignoreAttributes: true, parseTagValue: false, processEntities: false });

/** The latest release the registry's document names, or null when the document does not read as that registry's. */
export function latestReleaseOf(registry: Registry, body: Buffer): LatestRelease | null {
  if (registry === "maven") {
    const versioning = record(record(record(xml.parse(body.toString("utf8"))).metadata).versioning);
    const version = text(versioning.release) ?? text(versioning.latest);
    return version ? { version, releaseDate: null } : null;
  }
  const doc = record(JSON.parse(body.toString("utf8")) as unknown);
  switch (registry) {
    case "npm": {
      const version = text(record(doc["dist-tags"]).latest);
      return version ? { version, releaseDate: dayOf(record(doc.time)[version]) } : null;
    }
    case "pypi": {
      const version = text(record(doc.info).version);
      if (!version) return null;
      const files = Array.isArray(doc.urls) ? doc.urls.map(record) : [];
      const uploaded = files.map((f) => dayOf(f.upload_time_iso_8601 ?? f.upload_time)).filter((d) => d !== null);
      return { version, releaseDate: uploaded.sort()[0] ?? null };
    }
    case "crates": {
      const crate = record(doc.crate);
      const version = text(crate.max_stable_version) ?? text(crate.max_version);
      if (!version) return null;
      const versions = Array.isArray(doc.versions) ? doc.versions.map(record) : [];
      return { version, releaseDate: dayOf(versions.find((v) => v.num === version)?.created_at) };
    }
    case "go": {
      const version = text(doc.Version);
      return version ? { version, releaseDate: dayOf(doc.Time) } : null;
    }
    case "nuget": {
      // The flat container lists every version: the highest stable one, else the highest.
      const all = (Array.isArray(doc.versions) ? doc.versions : []).flatMap((v) => {
        const parsed = typeof v === "string" ? nugetScheme.parse(v) : null;
        return parsed ? [parsed] : [];
      });
      const stable = all.filter((v) => !v.includes("-"));
      const pick = (stable.length ? stable : all).sort(nugetScheme.compare).at(-1);
      return pick ? { version: pick, releaseDate: null } : null;
    }
    case "rubygems": {
      const version = text(doc.version);
      return version && version !== "unknown" ? { version, releaseDate: null } : null;
    }
  }
}
