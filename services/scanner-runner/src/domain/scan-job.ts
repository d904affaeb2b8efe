// What the worker decides about a scan job without any I/O: whether it is still its to run, which kinds this build
// scans, where each stage puts the progress bar, and how an attempt that threw ends (retryable or not, and the
// message people read).
import { SbomReadError } from "./sbom/errors.ts";

/** The scan kinds this build runs. */
export const SCANNED_KINDS: readonly string[] = ["sbom", "source", "container"];

/** The refusal of a job of a kind this build does not scan: a failed attempt, not retryable. */
export function unscannedKindMessage(kind: string): string {
  return (
    `This scanner-runner build does not run scans of kind "${kind.slice(0, 40)}"; it scans uploaded SBOMs, ` +
    "source trees and container images (kinds sbom, source, container)."
  );
}

/** What the worker last heard of the scan (known_scan_states), or null when it heard nothing yet. */
export interface HeardScanState {
  status: string;
  attempt: number;
}

/**
 * `run`: nothing says the job is over. `cancelled`: an admin cancelled the scan. `superseded`: the scan ended, or
 * moved on to a later attempt (a lease expired and the job was published again), so another run owns it.
 */
export type JobStanding = "run" | "cancelled" | "superseded";

export function jobStanding(attempt: number, heard: HeardScanState | null): JobStanding {
  if (!heard) return "run";
  if (heard.status === "cancelled") return "cancelled";
  if (heard.status === "succeeded" || heard.status === "failed") return "superseded";
  return heard.attempt > attempt ? "superseded" : "run";
}

/** The stages of an SBOM scan, in order, with the step (the spec's vocabulary) and percent each one reports. */
export const SBOM_STAGES = {
  started: { step: "sbom", percent: 0 },
  fetched: { step: "sbom", percent: 20 },
  read: { step: "sbom", percent: 50 },
  stored: { step: "ingest", percent: 70 },
  ingested: { step: "ingest", percent: 95 },
  matched: { step: "matching", percent: 99 },
} as const;

export type SbomStage = keyof typeof SBOM_STAGES;

/**
 * The stages of a source scan: the tree fetched (`clone` of the git_url, or `extract` of the uploaded archive), its
 * SBOM built (`cdxgen`), then the SBOM scan's reading and ingestion.
 */
export const SOURCE_STAGES = {
  cloning: { step: "clone", percent: 0 },
  extracting: { step: "extract", percent: 0 },
  /** A container scan: the image pulled from its registry and its layers unpacked (docs/container-scans.md). */
  pulling: { step: "pull", percent: 0 },
  fetched: { step: "cdxgen", percent: 20 },
  built: { step: "sbom", percent: 50 },
  /** A source tree's own files read by scancode for first-party licenses (docs/scancode.md). */
  licensing: { step: "scancode", percent: 50 },
} as const;

export type SourceStage = keyof typeof SOURCE_STAGES;

/** An attempt that cannot succeed by running it again: the input is bad or missing. */
export class JobInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JobInputError";
  }
}

/** An attempt that failed for a reason that may pass (a host down, a tool killed), with the message people read. */
export class TransientJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TransientJobError";
  }
}

export interface AttemptFailure {
  retryable: boolean;
  /** English, for people: never a path, secret or stack of the worker. */
  message: string;
}

/**
 * How an attempt that threw ends. A bad SBOM or a missing or altered upload fails for good, with the reason;
 * anything else (the artefact volume, the network, a service that did not answer) may pass next time.
 */
export function attemptFailure(err: unknown): AttemptFailure {
  if (err instanceof SbomReadError) return { retryable: false, message: err.message };
  if (err instanceof JobInputError) return { retryable: false, message: err.message };
  if (err instanceof TransientJobError) return { retryable: true, message: err.message };
  return {
    retryable: true,
    message: "The worker could not finish the scan (an internal or network error); the attempt may be retried.",
  };
}
