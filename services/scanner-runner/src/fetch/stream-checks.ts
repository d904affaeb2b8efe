// Pass-through streams that look at every chunk on its way: a count against a limit, an upload's size and SHA-256.
import { createHash } from "node:crypto";
import { Transform } from "node:stream";

/** Passes each chunk on unless `check` (which may count it) answers an error, which fails the stream. */
export function chunkCheck(check: (chunk: Buffer) => Error | undefined): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const failure = check(chunk);
      if (failure) return done(failure);
      done(null, chunk);
    },
  });
}

/** Counts and hashes what passes; past `maxBytes` the stream fails with `tooLarge()`. */
export function sizeAndDigest(maxBytes: number, tooLarge: () => Error) {
  const hash = createHash("sha256");
  let size = 0;
  const stream = chunkCheck((chunk) => {
    size += chunk.length;
    if (size > maxBytes) return tooLarge();
    hash.update(chunk);
    return undefined;
  });
  return { stream, size: () => size, sha256: () => hash.digest("hex") };
}
