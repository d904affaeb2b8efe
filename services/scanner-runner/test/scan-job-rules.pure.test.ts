import { describe, expect, it } from "@jest/globals";
import { attemptFailure, jobStanding, JobInputError, unscannedKindMessage } from "../src/domain/scan-job.ts";
import { SbomReadError } from "../src/domain/sbom/errors.ts";
import { RunningJobs } from "../src/events/running-jobs.ts";

describe("a job's standing", () => {
  it("runs unless the scan is over or another attempt owns it", () => {
    expect(jobStanding(1, null)).toBe("run");
    expect(jobStanding(1, { status: "queued", attempt: 1 })).toBe("run");
    expect(jobStanding(2, { status: "running", attempt: 1 })).toBe("run");
    expect(jobStanding(1, { status: "queued", attempt: 2 })).toBe("superseded");
    expect(jobStanding(2, { status: "failed", attempt: 2 })).toBe("superseded");
    expect(jobStanding(1, { status: "succeeded", attempt: 1 })).toBe("superseded");
    expect(jobStanding(1, { status: "cancelled", attempt: 1 })).toBe("cancelled");
  });

  it("reaches the runs of the scan the news ends, and only those", () => {
    const running = new RunningJobs();
    const first = running.begin("s1", 1);
    const other = running.begin("s2", 1);
    expect(running.heard("s1", { status: "running", attempt: 1 })).toBe(0);
    expect(running.heard("s1", { status: "cancelled", attempt: 1 })).toBe(1);
    expect(first.signal.aborted).toBe(true);
    expect(first.standing()).toBe("cancelled");
    expect(other.standing()).toBe("run");
    first.end();
    other.end();
    expect(running.size).toBe(0);
  });
});

describe("how an attempt ends", () => {
  it("fails bad input for good with its message, anything else retryable without the worker's details", () => {
    expect(attemptFailure(new SbomReadError("sbom_malformed_json", "The JSON document is malformed."))).toEqual({
      retryable: false,
      message: "The JSON document is malformed.",
    });
    expect(attemptFailure(new JobInputError("The scan names no uploaded SBOM."))).toEqual({
      retryable: false,
      message: "The scan names no uploaded SBOM.",
    });
    const io = attemptFailure(new Error("EIO: i/o error, open '/var/lib/sca/artefacts/uploads/x'"));
    expect(io.retryable).toBe(true);
    expect(io.message).not.toMatch(/\/var|EIO/);
  });

  it("names the kinds this build scans when it refuses one", () => {
    expect(unscannedKindMessage("ftp")).toBe(
      'This scanner-runner build does not run scans of kind "ftp"; it scans uploaded SBOMs, source trees and container images (kinds sbom, source, container).',
    );
  });
});
