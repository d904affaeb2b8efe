// The first file part of a multipart/form-data body, streamed (busboy): what the upload routes read.
import type { Readable } from "node:stream";
import busboy from "busboy";
import type { Request } from "express";
import { ProblemError } from "@sca/problem";

/** The first file of multipart field `field`; other parts are drained. */
export function multipartFile(
  req: Request,
  field: string,
  maxBytes: number,
): Promise<{ body: Readable; mediaType: string; fileName: string }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // One byte past the cap reaches the store, which refuses it (413): busboy's own limit only truncates.
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes + 1, fields: 20, parts: 25 } });
    } catch {
      reject(new ProblemError({ status: 400, code: "malformed_body", detail: "The multipart body has no boundary." }));
      return;
    }
    let found = false;
    parser.on("file", (name, stream, info) => {
      if (name !== field || found) {
        stream.resume();
        return;
      }
      found = true;
      resolve({ body: stream, mediaType: info.mimeType, fileName: info.filename ?? "" });
    });
    parser.on("error", () =>
      reject(new ProblemError({ status: 400, code: "malformed_body", detail: "The multipart body is malformed." })),
    );
    parser.on("close", () => {
      if (!found) reject(ProblemError.validation([{ path: `body.${field}`, message: "is required (a file part)" }]));
    });
    req.pipe(parser);
  });
}

/** The first file of multipart field `field`, read whole: 413 past `maxBytes` (small documents only). */
export async function multipartBytes(req: Request, field: string, maxBytes: number): Promise<Buffer> {
  const { body } = await multipartFile(req, field, maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      body.resume();
      throw new ProblemError({
        status: 413,
        code: "payload_too_large",
        detail: `The file is larger than ${maxBytes} bytes, the limit.`,
        extensions: { max_bytes: maxBytes },
      });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
