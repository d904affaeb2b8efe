// Reads and writes of scancode_file_results: the scancode stage's matches per file content (docs/scancode.md).
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { FileLicenseMatch } from "../domain/scancode/file-detections.ts";
import { ScancodeFileResult } from "./entities/scancode-file-result.ts";

/** Hashes looked up (or rows written) per statement. */
const CHUNK = 1000;

/** The stored matches of the contents among `sha256s` that `scanner` already read. */
export async function cachedFileMatches(
  em: EntityManager,
  scanner: string,
  sha256s: readonly string[],
): Promise<Map<string, FileLicenseMatch[]>> {
  const found = new Map<string, FileLicenseMatch[]>();
  for (let i = 0; i < sha256s.length; i += CHUNK) {
    const rows = await em.find(
      ScancodeFileResult,
      { scanner, sha256: { $in: sha256s.slice(i, i + CHUNK) } },
      { ...SNAPSHOT, fields: ["sha256", "matches"] },
    );
    for (const r of rows) found.set(r.sha256, r.matches);
  }
  return found;
}

/** Keeps what scancode found in these contents; a content stored already (another scan raced us) stays as it was. */
export async function rememberFileMatches(
  em: EntityManager,
  scanner: string,
  results: ReadonlyMap<string, FileLicenseMatch[]>,
): Promise<void> {
  const rows = [...results].map(([sha256, matches]) => ({ sha256, scanner, matches }));
  for (let i = 0; i < rows.length; i += CHUNK)
    await em
      .createQueryBuilder(ScancodeFileResult)
      .insert(rows.slice(i, i + CHUNK))
      .onConflict(["sha256", "scanner"])
      .ignore()
      .execute("run");
}
