// What the stage keeps of scancode's per-file record (its JSON-lines output, one `{"files": [...]}` object a line):
// each license match with the SPDX expression, the match score and the lines it covers. Pure: the tool run, the
// cache and the hand-over to projects live elsewhere (docs/scancode.md).

/** One license match scancode made in a file's content (no path: the cache keys it by content). */
export interface FileLicenseMatch {
  /** The SPDX expression of the match (scancode's LicenseRef-scancode-* for licenses SPDX does not list). */
  license: string;
  /** scancode's match score, 0..100. */
  score: number;
  startLine: number;
  endLine: number;
  /** How scancode matched: 1-hash, 1-spdx-id, 2-aho, 3-seq, ... */
  matcher: string;
  /** The scancode rule that matched. */
  rule: string;
}

/** A scanned file of the output: its path relative to the scanned root and its matches. */
export interface ScannedFile {
  path: string;
  matches: FileLicenseMatch[];
  /** scancode reported an error on the file (a per-file timeout, say): its matches may be partial. */
  failed: boolean;
}

interface ScancodeMatch {
  license_expression_spdx?: unknown;
  license_expression?: unknown;
  score?: unknown;
  start_line?: unknown;
  end_line?: unknown;
  matcher?: unknown;
  rule_identifier?: unknown;
}

const text = (v: unknown, max: number): string => (typeof v === "string" ? v.slice(0, max) : "");
const int = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : 0);

function matchOf(m: ScancodeMatch): FileLicenseMatch | undefined {
  const license = text(m.license_expression_spdx, 1000) || text(m.license_expression, 1000);
  if (!license) return undefined;
  const score = typeof m.score === "number" && Number.isFinite(m.score) ? Math.min(100, Math.max(0, m.score)) : 0;
  return {
    license,
    score,
    startLine: int(m.start_line),
    endLine: int(m.end_line),
    matcher: text(m.matcher, 32),
    rule: text(m.rule_identifier, 255),
  };
}

/**
 * The files of one line of scancode's --json-lines output: regular files only, with every match of every license
 * detection. The header line and the top-level `license_detections` line have no `files` and answer none.
 */
export function scannedFilesOf(line: string): ScannedFile[] {
  if (!line.startsWith('{"files"')) return [];
  const record = JSON.parse(line) as { files?: unknown };
  if (!Array.isArray(record.files)) return [];
  const files: ScannedFile[] = [];
  for (const f of record.files as Record<string, unknown>[]) {
    if (f?.type !== "file" || typeof f.path !== "string") continue;
    const detections = Array.isArray(f.license_detections) ? (f.license_detections as { matches?: unknown }[]) : [];
    const matches = detections
      .flatMap((d) => (Array.isArray(d?.matches) ? (d.matches as ScancodeMatch[]) : []))
      .map(matchOf)
      .filter((m): m is FileLicenseMatch => m !== undefined);
    const failed = Array.isArray(f.scan_errors) && f.scan_errors.length > 0;
    files.push({ path: f.path, matches, failed });
  }
  return files;
}
