// Where the shared data set lives: SCA_SHARED_DIR, else the repository's sibling `shared/` (in CI the clone has
// shared/ beside it; in a worktree under /work/wt that is /work/shared).
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

export function sharedDir(): string {
  const fromEnv = process.env.SCA_SHARED_DIR;
  if (fromEnv) return resolve(fromEnv);
  const sibling = resolve(repoRoot, "../shared");
  // A git worktree under <root>/wt/<name> has the data two levels up.
  return existsSync(sibling) ? sibling : resolve(repoRoot, "../../shared");
}
