// The vendored-OSS fingerprint stage's pure rules (docs/fingerprint.md). A file is named by its content's SWHID
// (`swh:1:cnt:<sha1 of "blob <size>\0" + bytes>`, git's blob id: Software Heritage's identifier), and only SWHIDs
// leave the runner: the request is Software Heritage's `POST /api/1/known/` body, a JSON array of at most 1,000
// SWHIDs; the answer maps each SWHID to `{ "known": bool }`. A knowledge base that knows where a file comes from
// adds `purl` (and optionally `name`, `version`, `license`) to a known entry: those files become components of the
// inventory (vendored OSS); known files without a purl are only counted and named in the scan's log.
import { addComponents, COMPONENT_SOURCE_PROPERTY, type SbomComponent, type SbomInventory } from "../sbom/inventory.ts";
import { canonicalPurl } from "../sbom/component-fields.ts";
import { createLicenseNormaliser } from "../sbom/license-expression.ts";

/** Software Heritage's /known/ endpoint takes at most this many SWHIDs per request. */
export const KNOWN_BATCH_MAX = 1000;

/** How many of a vendored component's file paths its raw_data keeps. */
const PATHS_KEPT = 50;

export const contentSwhid = (sha1GitHex: string): string => `swh:1:cnt:${sha1GitHex}`;

/** One file of the tree, by its path inside the tree (never sent) and its SWHID (sent). */
export interface FileFingerprint {
  path: string;
  swhid: string;
}

/** What the knowledge base said of one SWHID. */
export interface KnownFile {
  known: boolean;
  purl: string | null;
  name: string | null;
  version: string | null;
  license: string | null;
}

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim().slice(0, 2048) : null);
const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The answer of one request, for the SWHIDs that request asked about (anything else in it is ignored). */
export function knownFilesOf(answer: unknown, asked: readonly string[]): Map<string, KnownFile> {
  const doc = record(answer);
  const out = new Map<string, KnownFile>();
  for (const swhid of asked) {
    const entry = record(doc[swhid]);
    if (entry.known !== true) continue;
    // Canonical, as the SBOM reader keys components: a purl cdxgen also found is then recognised as the same.
    const purl = text(entry.purl);
    out.set(swhid, {
      known: true,
      purl: purl ? canonicalPurl(purl) : null,
      name: text(entry.name),
      version: text(entry.version),
      license: text(entry.license),
    });
  }
  return out;
}

/** The tree's known files, grouped: one vendored component per purl (its files' paths), and the rest. */
export interface FingerprintFindings {
  vendored: { purl: string; name: string | null; version: string | null; license: string | null; paths: string[] }[];
  knownWithoutPurl: string[];
}

export function findingsOf(
  files: readonly FileFingerprint[],
  known: ReadonlyMap<string, KnownFile>,
): FingerprintFindings {
  const byPurl = new Map<string, FingerprintFindings["vendored"][number]>();
  const knownWithoutPurl: string[] = [];
  for (const f of files) {
    const k = known.get(f.swhid);
    if (!k) continue;
    if (!k.purl) {
      knownWithoutPurl.push(f.path);
      continue;
    }
    const found = byPurl.get(k.purl);
    if (found) found.paths.push(f.path);
    else byPurl.set(k.purl, { purl: k.purl, name: k.name, version: k.version, license: k.license, paths: [f.path] });
  }
  return { vendored: [...byPurl.values()], knownWithoutPurl };
}

/** A purl's name and version, for a knowledge base that gave only the purl. */
function namedByPurl(purl: string): { name: string; version: string | null } {
  const body = purl.replace(/^pkg:[^/]+\//, "").split(/[?#]/)[0]!;
  const at = body.lastIndexOf("@");
  const path = decodeURIComponent(at > 0 ? body.slice(0, at) : body);
  return { name: path.split("/").pop() || path, version: at > 0 ? decodeURIComponent(body.slice(at + 1)) : null };
}

/** The vendored components the findings name. `license` is normalised by the caller (null: none given). */
function vendoredComponentsOf(
  findings: FingerprintFindings,
  normalise: (license: string) => { expression: string | null; ids: string[] },
): SbomComponent[] {
  return findings.vendored.map((v) => {
    const named = namedByPurl(v.purl);
    const license = v.license ? normalise(v.license) : { expression: null, ids: [] };
    return {
      key: v.purl,
      refs: [],
      type: "library",
      group: null,
      name: v.name ?? named.name,
      version: v.version ?? named.version,
      purl: v.purl,
      cpe: null,
      hashes: [],
      declaredLicense: license.expression,
      concludedLicense: null,
      licenseIds: license.ids,
      supplier: null,
      author: null,
      description: null,
      scope: null,
      direct: null,
      depth: null,
      rawJson: JSON.stringify({
        purl: v.purl,
        properties: [{ name: COMPONENT_SOURCE_PROPERTY, value: "fingerprint" }],
        evidence: { occurrences: v.paths.slice(0, PATHS_KEPT).map((location) => ({ location })) },
        fileCount: v.paths.length,
      }),
    };
  });
}

/**
 * Adds the findings' vendored components to the inventory, in place: those whose purl the SBOM does not already hold
 * (a package manifest found it: not vendored). Answers how many were added.
 */
export function addVendoredComponents(inventory: SbomInventory, findings: FingerprintFindings): number {
  const normaliser = createLicenseNormaliser();
  return addComponents(
    inventory,
    vendoredComponentsOf(findings, (license) => normaliser.expression(license)),
  );
}
