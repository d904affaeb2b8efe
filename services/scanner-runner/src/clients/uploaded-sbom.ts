// The uploaded SBOM a job names, read from the artefact store and checked against the size and SHA-256 recorded at
// upload. Reading stops past the reader's cap (nothing larger is ever read whole) and at once when `signal` aborts,
// even while the volume has not answered yet.
import { createHash } from "node:crypto";
import type { ArtefactStore } from "@sca/artefacts";
import type { ScanArtefact } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { JobInputError } from "../domain/scan-job.ts";
import { SbomReadError } from "../domain/sbom/errors.ts";

export async function fetchUploadedSbom(
  store: ArtefactStore,
  artefact: ScanArtefact | undefined,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer> {
  if (!artefact?.key) throw new JobInputError("The scan names no uploaded SBOM.");
  if (artefact.sizeBytes > BigInt(maxBytes)) {
    throw new SbomReadError(
      "sbom_too_large",
      `The SBOM is ${artefact.sizeBytes} bytes; the largest accepted is ${maxBytes} bytes.`,
    );
  }
  const stream = await abortable(store.get(artefact.key), signal, (late) => late?.destroy());
  if (!stream) throw new JobInputError("The uploaded SBOM is no longer in the artefact store; upload it again.");
  // The recorded size is known (and within the cap): the bytes go straight into one buffer of it, never into chunks
  // then a copy of them all (twice the document at once, tens of MB for a large SBOM).
  const bytes = Buffer.allocUnsafe(Number(artefact.sizeBytes));
  const hash = createHash("sha256");
  let size = 0;
  const stop = () => stream.destroy();
  signal.addEventListener("abort", stop, { once: true });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (size + chunk.length > bytes.length) throw mismatch();
      hash.update(chunk);
      chunk.copy(bytes, size);
      size += chunk.length;
    }
  } catch (err) {
    signal.throwIfAborted();
    throw err;
  } finally {
    signal.removeEventListener("abort", stop);
    stream.destroy();
  }
  signal.throwIfAborted();
  if (BigInt(size) !== artefact.sizeBytes || (artefact.sha256 && hash.digest("hex") !== artefact.sha256.toLowerCase()))
    throw mismatch();
  return bytes;
}

function mismatch(): JobInputError {
  return new JobInputError(
    "The uploaded SBOM does not match the size and SHA-256 recorded when it was uploaded; upload it again.",
  );
}

/** `work`, or the signal's reason as soon as it aborts; what `work` answers after that is handed to `discard`. */
function abortable<T>(work: Promise<T>, signal: AbortSignal, discard: (late: T) => void): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason as Error);
      work.then(discard, () => undefined);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) discard(value);
        else resolve(value);
      },
      (err: Error) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
