// The rules an uploaded source archive's entries are held to, whether a .zip (source-archive.ts) or a .tar.gz
// (source-tarball.ts): its limits, where an entry may land, and the refusals both extractions give.
import { resolve, sep } from "node:path";
import { JobInputError } from "../domain/scan-job.ts";

export interface ArchiveLimits {
  /** SOURCE_ARCHIVE_MAX_BYTES: the archive itself. */
  maxBytes: number;
  maxEntries: number;
  maxExpandedBytes: number;
}

/** The entry's path inside `root`, or the refusal of a path that is absolute or climbs out. */
export function placeOf(root: string, name: string): string {
  if (name.startsWith("/") || name.startsWith("\\") || /^[A-Za-z]:/.test(name))
    throw new JobInputError(`The source archive holds an entry with an absolute path (${name.slice(0, 200)}).`);
  if (name.split(/[\\/]/).includes(".."))
    throw new JobInputError(
      `The source archive holds an entry climbing out of the tree with .. (${name.slice(0, 200)}).`,
    );
  const place = resolve(root, name);
  if (place !== root && !place.startsWith(root + sep))
    throw new JobInputError(`The source archive holds an entry outside the tree (${name.slice(0, 200)}).`);
  return place;
}

export function expandedTooLarge(limits: ArchiveLimits): JobInputError {
  return new JobInputError(
    `The source archive expands past SOURCE_ARCHIVE_MAX_EXPANDED_BYTES (${limits.maxExpandedBytes} bytes); it was not extracted.`,
  );
}

export function escapingLinkError(name: string): JobInputError {
  return new JobInputError(
    `The source archive holds a symbolic link leading outside the tree (${name.slice(0, 200)}).`,
  );
}
