// Uploads, streamed from disk with their progress: an SBOM as the raw body with its media type (the route takes
// either that or multipart; the raw body lets the portal refuse an oversized one from Content-Length before a byte
// is sent), an archive as the multipart field `upload`. A directory is zipped on the fly (source-zip.ts). Each
// attempt of a retried upload reads the file again: nothing is held in memory.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import { Readable } from "node:stream";
import { CliError } from "./exit-codes.ts";
import { refusal, scanHint, type Portal } from "./portal.ts";

/** The media type the SBOM upload route wants for a file, from its name (docs/scans.md lists what it takes). */
export function sbomMediaType(path: string): string {
  const name = path.toLowerCase();
  if (name.endsWith(".xml")) return "application/xml";
  if (name.endsWith(".spdx") || name.endsWith(".txt")) return "text/plain";
  if (name.endsWith(".spdx.json")) return "application/spdx+json";
  if (name.endsWith(".cdx.json")) return "application/vnd.cyclonedx+json";
  if (extname(name) === ".json") return "application/json";
  throw new CliError(`${basename(path)}: an SBOM is .json, .xml or .spdx (SPDX tag-value)`);
}

export interface Body {
  /** A fresh stream of the bytes for each attempt. */
  open(): ReadableStream<Uint8Array>;
  size: number | null;
  contentType: string;
}

export async function fileBody(path: string, contentType: string): Promise<Body> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) throw new CliError(`${path}: no such file`);
  return {
    open: () => Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>,
    size: info.size,
    contentType,
  };
}

/** The body as one multipart/form-data part named `field` (the archive routes' `upload`). */
export function multipart(field: string, fileName: string, inner: Body): Body {
  const boundary = `sca-${crypto.randomUUID()}`;
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName.replace(/"/g, "")}"\r\n` +
      `Content-Type: ${inner.contentType}\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    size: inner.size === null ? null : head.length + inner.size + tail.length,
    open() {
      const source = inner.open().getReader();
      let stage: "head" | "body" | "tail" | "done" = "head";
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (stage === "head") {
            stage = "body";
            return controller.enqueue(head);
          }
          if (stage === "body") {
            const { value, done } = await source.read();
            if (!done) return controller.enqueue(value);
            stage = "tail";
          }
          if (stage === "tail") {
            stage = "done";
            controller.enqueue(tail);
            return;
          }
          controller.close();
        },
        cancel: (reason) => source.cancel(reason),
      });
    },
  };
}

/** POSTs the body to `path` under the API, with a progress bar of the bytes sent; the JSON answer. */
export async function upload<T>(portal: Portal, path: string, label: string, body: Body): Promise<T> {
  const progress = portal.terminal.progress(label, body.size ?? 0, "bytes");
  let sent = 0;
  try {
    const response = await portal.send(() => {
      sent = 0;
      const counted = body.open().pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            sent += chunk.byteLength;
            progress.update(sent);
            controller.enqueue(chunk);
          },
        }),
      );
      const headers = new Headers({ "content-type": body.contentType });
      if (body.size !== null) headers.set("content-length", String(body.size));
      return new Request(`${portal.apiUrl}${path}`, { method: "POST", body: counted, headers, duplex: "half" });
    });
    const text = await response.text();
    const json: unknown = text ? JSON.parse(text) : null;
    if (!response.ok) throw refusal(response, json, scanHint(portal));
    return json as T;
  } finally {
    progress.update(sent);
    progress.stop();
  }
}
