// Releases: a scan is labelled a release by metadata.release (the spec's Scan.release). The label is matched
// exactly once trimmed, so it is stored trimmed; blank means no label.
import { normalizeGitRef } from "./refs.ts";

export const RELEASE_LABEL_MAX_CHARS = 100;

/** Largest metadata object accepted, serialised as JSON. */
export const SCAN_METADATA_MAX_BYTES = 16_384;

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export type ReleaseReading = { ok: true; release: string | null } | { ok: false; path: string; message: string };

/** A label as stored and as the release filter compares it: trimmed, and null when blank. */
export function normalizeReleaseLabel(label: string | null | undefined): string | null {
  const trimmed = label?.trim() ?? "";
  return trimmed === "" ? null : trimmed;
}

/** The release label of a scan's metadata: absent, null or blank is none; anything but a string is refused. */
export function releaseFromMetadata(metadata: Readonly<Record<string, unknown>> | undefined): ReleaseReading {
  const value = metadata?.release;
  if (value === undefined || value === null) return { ok: true, release: null };
  const path = "body.metadata.release";
  if (typeof value !== "string")
    return { ok: false, path, message: 'must be a string (a version label such as "2.4.0")' };
  const release = normalizeReleaseLabel(value);
  if (release === null) return { ok: true, release: null };
  if ([...release].length > RELEASE_LABEL_MAX_CHARS)
    return { ok: false, path, message: `must be at most ${RELEASE_LABEL_MAX_CHARS} characters` };
  if (CONTROL_CHARACTER.test(release)) return { ok: false, path, message: "must not contain control characters" };
  return { ok: true, release };
}

/** The release a succeeded scan keeps: its metadata's label, else the version the SBOM gives its primary component. */
export function releaseOnSuccess(
  fromMetadata: string | null,
  documentRelease: string | null | undefined,
): string | null {
  if (fromMetadata !== null) return fromMetadata;
  const fromDocument = normalizeReleaseLabel(documentRelease);
  return fromDocument !== null &&
    [...fromDocument].length <= RELEASE_LABEL_MAX_CHARS &&
    !CONTROL_CHARACTER.test(fromDocument)
    ? fromDocument
    : null;
}

/** A violation of the metadata's own bounds, or null. */
export function metadataProblem(
  metadata: Readonly<Record<string, unknown>> | undefined,
): { path: string; message: string } | null {
  if (metadata === undefined) return null;
  const bytes = Buffer.byteLength(JSON.stringify(metadata), "utf8");
  if (bytes > SCAN_METADATA_MAX_BYTES)
    return {
      path: "body.metadata",
      message: `must be at most ${SCAN_METADATA_MAX_BYTES} bytes as JSON (it is ${bytes})`,
    };
  return null;
}

/** The longest label the releases filter takes (the components' release anchor's bound); longer is refused. */
export const RELEASE_FILTER_MAX_CHARS = 255;

/**
 * The releases list's filter: the exact label (trimmed) and the normalised ref; null is any. The list holds the
 * succeeded scans carrying a label, superseded ones included: a newer scan of the same ref replaced the ref's
 * current inventory, not the fact that this one was released (retention keeps labelled scans for the same reason).
 */
export interface ReleaseListFilter {
  release: string | null;
  normalizedRef: string | null;
}

export type ReleaseFilterReading =
  { ok: true; filter: ReleaseListFilter } | { ok: false; violations: { path: string; message: string }[] };

/**
 * The releases list's query: `release` is matched exactly once trimmed (blank: no filter; a label no scan carries:
 * an empty list); `ref` is a branch (bare name) or a fully qualified ref, normalised as a scan's own ref
 * (domain/refs.ts), so `main` and `refs/heads/main` select the same releases (blank: no filter).
 */
export function releaseListFilterOf(release: string | undefined, ref: string): ReleaseFilterReading {
  const violations: { path: string; message: string }[] = [];
  const label = normalizeReleaseLabel(release);
  if (label !== null && [...label].length > RELEASE_FILTER_MAX_CHARS)
    violations.push({ path: "query.release", message: `must be at most ${RELEASE_FILTER_MAX_CHARS} characters` });
  let normalizedRef: string | null = null;
  const reading = normalizeGitRef(ref);
  if (!reading.ok) violations.push({ path: "query.ref", message: reading.message });
  else if (reading.normalized !== "") normalizedRef = reading.normalized;
  if (violations.length) return { ok: false, violations };
  return { ok: true, filter: { release: label, normalizedRef } };
}
