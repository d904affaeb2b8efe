// A server stream of a document (an SBOM, a notice) sends it in messages of about `size` bytes: small pieces are
// gathered so a message is not sent per line, and a message holds no more than one piece past the size.
export async function* byteChunks(pieces: AsyncIterable<string>, size: number): AsyncGenerator<Uint8Array> {
  let pending: string[] = [];
  let length = 0;
  for await (const piece of pieces) {
    pending.push(piece);
    length += piece.length;
    if (length >= size) {
      yield Buffer.from(pending.join(""), "utf8");
      pending = [];
      length = 0;
    }
  }
  if (pending.length) yield Buffer.from(pending.join(""), "utf8");
}
