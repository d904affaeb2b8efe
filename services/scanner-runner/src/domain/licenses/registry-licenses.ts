// Where a package registry states a release's license and how its answer reads (docs/license-fetch.md): npm's
// packument (`versions[v].license`, the legacy `licenses` list, else the document's own `license`), PyPI's JSON API
// (`info.license_expression`, else a short `info.license`, else the "License ::" classifiers), crates.io's API v1
// (`versions[].license`) and a Maven POM (`<licenses>`, else its parent POM's, a few levels up). The Go module proxy,
// NuGet's flat container and RubyGems' latest.json carry no license: those ecosystems are not looked up.
import { XMLParser } from "fast-xml-parser";
import { latestUrlOf, type Registry } from "../currency/registries.ts";

/**
 * A license as the registry wrote it: SPDX expressions (npm, crates, PyPI's license_expression) or names (a POM's,
 * PyPI's license and classifiers). Several are a choice the release offers (joined with OR).
 */
export interface RegistryLicense {
  texts: string[];
  kind: "expression" | "name";
}

/** A Maven artifact's coordinates (a parent POM). */
export interface MavenCoordinates {
  group: string;
  artifact: string;
  version: string;
}

/** What one registry document says of a release's license; for a POM without one, the parent to ask next. */
export interface LicenseReading {
  license: RegistryLicense | null;
  parent: MavenCoordinates | null;
}

/** The registries that publish licenses. */
export const LICENSE_REGISTRIES: readonly Registry[] = ["npm", "pypi", "crates", "maven"];

/** How many parent POMs are followed for a Maven artifact whose POM names no license (Apache's chain is two). */
export const MAVEN_PARENT_DEPTH = 4;

/** PyPI's `info.license` is often the whole license text: past this it is not taken as a name. */
const PYPI_LICENSE_NAME_MAX = 100;

const trimmed = (base: string) => base.replace(/\/+$/, "");
const text = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);
const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/** A Maven POM's URL under a repository base. */
export function pomUrlOf(base: string, c: MavenCoordinates): string {
  const path = [...c.group.split("."), c.artifact, c.version].map(encodeURIComponent).join("/");
  return `${trimmed(base)}/${path}/${encodeURIComponent(`${c.artifact}-${c.version}.pom`)}`;
}

/**
 * The documents asked for a release's license, in order (the next only when the one before gave nothing), or
 * null when the registry publishes none or the name cannot be one of its. npm and crates.io state every release's
 * license in the package's document, the one the currency lookup reads; PyPI's release document first, then the
 * project's (its latest release's license), which some mirrors serve alone.
 */
export function licenseUrlsOf(registry: Registry, base: string, name: string, version: string): string[] | null {
  switch (registry) {
    case "npm":
    case "crates": {
      const url = latestUrlOf(registry, base, name);
      return url ? [url] : null;
    }
    case "pypi":
      return [
        `${trimmed(base)}/pypi/${encodeURIComponent(name)}/${encodeURIComponent(version)}/json`,
        latestUrlOf("pypi", base, name)!,
      ];
    case "maven": {
      const [group, artifact, ...rest] = name.split(":");
      if (!group || !artifact || rest.length || !version) return null;
      return [pomUrlOf(base, { group, artifact, version })];
    }
    default:
      return null;
  }
}

const xml = new XMLParser({ ignoreAttributes: true, parseTagValue: false, processEntities: false });

/** npm's license field: a string, or the legacy `{type}` object; the legacy `licenses` list joined with OR. */
function npmLicenseOf(doc: Record<string, unknown>): RegistryLicense | null {
  const single = text(doc.license) ?? text(record(doc.license).type);
  if (single) return { texts: [single], kind: "expression" };
  const several = list(doc.licenses).flatMap((l) => {
    const t = text(l) ?? text(record(l).type);
    return t ? [t] : [];
  });
  if (several.length === 0) return null;
  return { texts: several, kind: "expression" };
}

function pypiLicenseOf(info: Record<string, unknown>): RegistryLicense | null {
  const expression = text(info.license_expression);
  if (expression) return { texts: [expression], kind: "expression" };
  const declared = text(info.license);
  if (declared && declared.length <= PYPI_LICENSE_NAME_MAX && !declared.includes("\n"))
    return { texts: [declared], kind: "name" };
  const classifiers = list(info.classifiers)
    .flatMap((c) => (typeof c === "string" && c.startsWith("License ::") ? [c.split("::").at(-1)!.trim()] : []))
    .filter((c) => c && c !== "OSI Approved");
  return classifiers.length ? { texts: classifiers, kind: "name" } : null;
}

function pomReading(body: Buffer): LicenseReading {
  const project = record(record(xml.parse(body.toString("utf8"))).project);
  const names = list(record(project.licenses).license).flatMap((l) => {
    const t = text(record(l).name) ?? text(record(l).url);
    return t ? [t] : [];
  });
  const parent = record(project.parent);
  const group = text(parent.groupId);
  const artifact = text(parent.artifactId);
  const version = text(parent.version);
  return {
    license: names.length ? { texts: names, kind: "name" } : null,
    parent: names.length === 0 && group && artifact && version ? { group, artifact, version } : null,
  };
}

/** The license a registry document states for `version`; null when it states none (or does not read). */
export function licenseReadingOf(registry: Registry, body: Buffer, version: string): LicenseReading {
  const none: LicenseReading = { license: null, parent: null };
  try {
    if (registry === "maven") return pomReading(body);
    const doc = record(JSON.parse(body.toString("utf8")) as unknown);
    switch (registry) {
      case "npm": {
        const release = record(record(doc.versions)[version]);
        return { license: npmLicenseOf(release) ?? npmLicenseOf(doc), parent: null };
      }
      case "pypi":
        return { license: pypiLicenseOf(record(doc.info)), parent: null };
      case "crates": {
        const release = list(doc.versions)
          .map(record)
          .find((v) => v.num === version);
        const license = text(release?.license);
        // crates.io still lists old releases' "MIT/Apache-2.0" (a choice, before SPDX expressions were asked for).
        const texts = license ? [license.replaceAll("/", " OR ")] : [];
        return { license: texts.length ? { texts, kind: "expression" } : null, parent: null };
      }
      default:
        return none;
    }
  } catch {
    return none;
  }
}
