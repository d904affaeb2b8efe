// A source tree's root package.json, read while the tree is there and kept in the artefact store beside the scan's
// inventory (stored with it): the npm remediation dry-run edits it when no manifest is sent (docs/scm.md, "npm
// remediation dry-run"). The root is the tree's, or the one directory an archive wraps it in (as GitHub's archives
// do). The tree is hostile: only a regular file is read (a link named package.json is not followed), up to
// PACKAGE_JSON_MAX_BYTES, its bytes as they are.
import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";

/** Far above any real package.json; a larger one is not kept. */
export const PACKAGE_JSON_MAX_BYTES = 1024 ** 2;

/** Where a scan's package.json lives: beside its inventory, under the scan's key. */
export function packageJsonArtefactKey(scanId: string): string {
  return `scans/${scanId}/package.json`;
}

/** The tree's root package.json; null when it has none there or it is past the bound. */
export async function readRootPackageJson(tree: string): Promise<Buffer | null> {
  let bytes = await readPackageJson(tree);
  if (bytes === undefined) {
    const entries = await readdir(tree, { withFileTypes: true });
    const [only] = entries;
    if (entries.length === 1 && only!.isDirectory()) bytes = await readPackageJson(join(tree, only!.name));
  }
  return bytes ?? null;
}

/** The directory's package.json; undefined when there is none, null when it is no regular file or past the bound. */
async function readPackageJson(dir: string): Promise<Buffer | null | undefined> {
  const file = await open(join(dir, "package.json"), constants.O_RDONLY | constants.O_NOFOLLOW).catch(
    (err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? undefined : null),
  );
  if (!file) return file;
  try {
    const stat = await file.stat();
    if (!stat.isFile() || stat.size > PACKAGE_JSON_MAX_BYTES) return null;
    const bytes = await file.readFile();
    return bytes.length > PACKAGE_JSON_MAX_BYTES ? null : bytes;
  } finally {
    await file.close();
  }
}
