// The vendored-OSS fingerprint stage of source scans (docs/fingerprint.md), reported between cdxgen and reading its
// SBOM, its work begun beside cdxgen:
// FINGERPRINT_ENABLED (off by default) hashes the tree's files and asks FINGERPRINT_API_URL which it knows, sending
// SWHIDs only, within FINGERPRINT_TIMEOUT_SECONDS. A timeout or a failing knowledge base skips the stage with a log
// line; the scan goes on with cdxgen's inventory alone.
import {
  findingsOf,
  type FileFingerprint,
  type FingerprintFindings,
  type KnownFile,
} from "../domain/fingerprint/known-files.ts";
import type { Workspace } from "../sandbox/workspace.ts";
import {
  askKnowledgeBase,
  FINGERPRINT_MAX_FILES,
  fingerprintTree,
  type FingerprintOptions,
} from "../tools/fingerprint.ts";
import type { AttemptReporter } from "./attempt-reporter.ts";

export interface FingerprintDeps extends FingerprintOptions {
  /** FINGERPRINT_ENABLED */
  enabled: boolean;
  /** FINGERPRINT_TIMEOUT_SECONDS, in ms: the whole stage. */
  timeoutMs: number;
}

/** The spec's stage vocabulary: the vendored-OSS fingerprint stage (progress step and log stage). */
export const FINGERPRINT_STAGE = "fingerprint";
/** Between cdxgen (20) and reading the SBOM (50). */
const FINGERPRINT_PERCENT = 50;
/** Known files without a package named in the log, at most. */
const EXAMPLES = 20;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the knowledge base";
  }
}

/**
 * The stage's work (the tree hashed, the knowledge base asked) begun beside cdxgen, which reads the same tree; its
 * clock (FINGERPRINT_TIMEOUT_SECONDS) starts here. Null when the stage is off. `done` never rejects.
 */
export interface FingerprintRun {
  done: Promise<{ files: FileFingerprint[]; truncated: boolean; known: Map<string, KnownFile> } | { err: unknown }>;
  timeout: AbortSignal;
}

export function startFingerprinting(
  ws: Workspace,
  deps: FingerprintDeps,
  jobSignal: AbortSignal,
): FingerprintRun | null {
  if (!deps.enabled) return null;
  const timeout = AbortSignal.timeout(deps.timeoutMs);
  const signal = AbortSignal.any([jobSignal, timeout]);
  const work = async () => {
    const { files, truncated } = await fingerprintTree(ws.tree, signal);
    const known = await askKnowledgeBase(
      files.map((f) => f.swhid),
      deps,
      signal,
    );
    return { files, truncated, known };
  };
  return { done: work().catch((err: unknown) => ({ err })), timeout };
}

/** The stage reported and its findings logged, or null when it is off or was skipped. */
export async function fingerprintStage(
  run: FingerprintRun | null,
  deps: FingerprintDeps,
  reporter: AttemptReporter,
  jobSignal: AbortSignal,
): Promise<FingerprintFindings | null> {
  if (!run) return null;
  await reporter.progress(FINGERPRINT_STAGE, FINGERPRINT_PERCENT);
  const outcome = await run.done;
  if ("err" in outcome) {
    jobSignal.throwIfAborted();
    const why = run.timeout.aborted
      ? `it did not finish within FINGERPRINT_TIMEOUT_SECONDS (${deps.timeoutMs / 1000} s)`
      : `${hostOf(deps.apiUrl)} could not be asked (${outcome.err instanceof Error ? outcome.err.message : "an error"})`;
    await reporter.log(FINGERPRINT_STAGE, "stderr", [
      `The fingerprint stage was skipped: ${why}; the scan goes on without it.`,
    ]);
    return null;
  }
  const { files, truncated, known } = outcome;
  const findings = findingsOf(files, known);
  const knownCount = files.filter((f) => known.has(f.swhid)).length;
  const lines = [
    `Fingerprinted ${files.length} files${truncated ? ` (the first ${FINGERPRINT_MAX_FILES}; the rest were not)` : ""}; ` +
      `their SWHIDs (content hashes only) were sent to ${hostOf(deps.apiUrl)}: ${knownCount} files known, ` +
      `${findings.vendored.length} packages recognised, ${findings.knownWithoutPurl.length} known files without a package.`,
    ...findings.vendored.map(
      (v) => `Vendored ${v.purl}: ${v.paths.length} files, e.g. ${v.paths.slice(0, 3).join(", ")}.`,
    ),
    ...findings.knownWithoutPurl.slice(0, EXAMPLES).map((path) => `Known to the knowledge base: ${path}`),
  ];
  await reporter.log(FINGERPRINT_STAGE, "stdout", lines);
  return findings;
}
