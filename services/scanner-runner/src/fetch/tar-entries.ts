// A tar archive read with node-tar's Parser one entry at a time: each entry is handed to `each` (which must consume
// or resume it) once the one before is done, and the first failure aborts the parse and is what the read throws.
import type { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Parser, type ReadEntry } from "tar";
import { JobInputError } from "../domain/scan-job.ts";

export async function readTarEntries(
  source: Readable,
  checks: readonly Transform[],
  each: (entry: ReadEntry) => Promise<void> | void,
  signal: AbortSignal,
  unreadable: (reason: string) => Error,
): Promise<void> {
  let failure: Error | undefined;
  let chain = Promise.resolve();
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      // One entry after another: the parser waits while an entry's data is not read yet.
      chain = chain.then(async () => {
        if (failure) return void entry.resume();
        try {
          await each(entry);
        } catch (err) {
          failure ??= err as Error;
          entry.resume();
          parser.abort(failure);
        }
      });
    },
  });
  try {
    await pipeline([source, ...checks, parser], { signal });
    await chain;
  } catch (err) {
    await chain.catch(() => undefined);
    if (failure) throw failure;
    signal.throwIfAborted();
    // A check before the parser refused the stream in its own words.
    if (err instanceof JobInputError) throw err;
    throw unreadable((err as Error).message.slice(0, 120));
  }
  if (failure) throw failure;
}
