// An artefact read whole into memory, for the small ones a caller needs as one buffer (a kept package.json, the SBOM
// export kept for signing). Larger ones are streamed with ArtefactStore.get.
import type { ArtefactStore } from "./store.ts";

/** The artefact's bytes; null when there is none under `key` or it is past `maxBytes` (read no further). */
export async function artefactBytes(
  store: ArtefactStore,
  key: string,
  maxBytes = Number.MAX_SAFE_INTEGER,
): Promise<Buffer | null> {
  const stream = await store.get(key);
  if (!stream) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) return null;
      chunks.push(chunk);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, size);
}
