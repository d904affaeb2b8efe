// The Go release each go.mod of a source tree names (domain/sbom/go-toolchain.ts), read where cdxgen reads go.mod
// files: everywhere in the tree but under `node_modules` and directories whose name starts with a dot. The tree is
// hostile: only regular files are read (a link named go.mod is not followed), each up to GO_MOD_MAX_BYTES.
import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { goModToolchainOf, type GoModToolchain } from "../domain/sbom/go-toolchain.ts";

/** Far above any real go.mod (Kubernetes' is under 20 KB); a larger file is not read. */
const GO_MOD_MAX_BYTES = 1024 ** 2;

/** The file's text; null when it is too large or cannot be read (cdxgen could not have read it either). */
async function readGoMod(path: string): Promise<string | null> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  if (!file) return null;
  try {
    const { size } = await file.stat();
    if (size > GO_MOD_MAX_BYTES) return null;
    return await file.readFile("utf8");
  } finally {
    await file.close();
  }
}

/** Every go.mod of the tree that names a Go release, by path. */
export async function readGoToolchains(tree: string, signal: AbortSignal): Promise<GoModToolchain[]> {
  const found: GoModToolchain[] = [];
  const pending = [tree];
  while (pending.length) {
    const dir = pending.pop()!;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      signal.throwIfAborted();
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith(".") && entry.name !== "node_modules") pending.push(path);
      } else if (entry.isFile() && entry.name === "go.mod") {
        const text = await readGoMod(path);
        const toolchain = text === null ? null : goModToolchainOf(relative(tree, path), text);
        if (toolchain) found.push(toolchain);
      }
    }
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
