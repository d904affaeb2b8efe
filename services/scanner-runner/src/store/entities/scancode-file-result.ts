import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import type { FileLicenseMatch } from "../../domain/scancode/file-detections.ts";

/**
 * What scancode found in one file's content, keyed by the content's SHA-256 and the scanner (its version and
 * options): a file whose bytes a previous scan already read is not scanned again, whatever its path or project
 * (docs/scancode.md). A file without any detection is kept too (an empty list), so it is not rescanned either.
 */
export const ScancodeFileResult = defineEntity({
  name: "ScancodeFileResult",
  tableName: "scancode_file_results",
  properties: {
    /** Lower-case hex SHA-256 of the file's bytes. */
    sha256: p.string().length(64).primary(),
    /** The scancode version and options that produced the result (another version rescans). */
    scanner: p.string().length(64).primary(),
    matches: p.json<FileLicenseMatch[]>(),
    createdAt: p.datetime().defaultRaw("now()"),
  },
});

export type ScancodeFileResultRow = InferEntity<typeof ScancodeFileResult>;
