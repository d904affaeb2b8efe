// Checks of a source tree before a tool reads it: how many bytes it holds (a clone's size cap) and whether a
// symbolic link in it leads outside it (a repository or archive pointing the scanner at /etc or the runner's files).
import { lstat, opendir, readlink, realpath } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";

const inside = (root: string, path: string) => path === root || path.startsWith(root + sep);

async function* walk(dir: string): AsyncGenerator<{ path: string; kind: "file" | "dir" | "link" | "other" }> {
  for await (const entry of await opendir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) yield { path, kind: "link" };
    else if (entry.isDirectory()) {
      yield { path, kind: "dir" };
      yield* walk(path);
    } else yield { path, kind: entry.isFile() ? "file" : "other" };
  }
}

/** The bytes the files under `dir` hold, counting stops past `max` (answering a number above it). */
export async function treeBytes(dir: string, max: number): Promise<number> {
  let total = 0;
  for await (const { path, kind } of walk(dir)) {
    if (kind !== "file") continue;
    total += (await lstat(path)).size;
    if (total > max) return total;
  }
  return total;
}

/** The first symbolic link under `root` whose target lies outside it (relative to root), or null. */
export async function escapingLink(root: string): Promise<string | null> {
  for await (const link of escapingLinks(root)) return link;
  return null;
}

/**
 * Every symbolic link under `root` whose target lies outside it (relative to root), followed as the kernel would:
 * two links each inside on their own may lead out together (a -> b/.., b -> ..).
 */
export async function* escapingLinks(root: string): AsyncGenerator<string> {
  const realRoot = await realpath(root);
  for await (const { path, kind } of walk(root)) {
    if (kind !== "link") continue;
    let target: string;
    try {
      target = await realpath(path);
    } catch {
      // Dangling: judge the text of the link as written.
      target = resolve(dirname(path), await readlink(path));
      if (inside(root, target)) continue;
      yield relative(root, path);
      continue;
    }
    if (!inside(realRoot, target)) yield relative(root, path);
  }
}
