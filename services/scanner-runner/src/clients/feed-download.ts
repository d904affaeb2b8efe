// Downloads an enrichment feed over HTTP(S): one request, bounded in time (the whole body included) and, for bodies
// read whole, in size. A non-2xx answer, a timeout or a body over the cap is a FeedDownloadError; the message names
// the feed's host only (a URL's path or query may carry a token).
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { createGunzip } from "node:zlib";

export class FeedDownloadError extends Error {
  override name = "FeedDownloadError";
  /** No answer came: the host could not be reached, or did not answer within the time. */
  readonly unanswered: boolean;

  constructor(message: string, unanswered = false) {
    super(message);
    this.unanswered = unanswered;
  }
}

export interface DownloadOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Request headers (a registry may want a user agent). */
  headers?: Record<string, string>;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the feed";
  }
}

async function request(url: string, opts: DownloadOptions): Promise<Response> {
  const signals = [AbortSignal.timeout(opts.timeoutMs), ...(opts.signal ? [opts.signal] : [])];
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.any(signals), redirect: "follow", headers: opts.headers });
  } catch (err) {
    // DOMException (TimeoutError, AbortError) from the signal; compared by name, as it may come from another realm.
    const name = (err as { name?: unknown } | null)?.name;
    const timedOut = name === "TimeoutError" || name === "AbortError";
    throw new FeedDownloadError(
      timedOut
        ? `the download from ${hostOf(url)} took longer than ${opts.timeoutMs / 1000} s`
        : `${hostOf(url)} could not be reached`,
      true,
    );
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new FeedDownloadError(`${hostOf(url)} answered HTTP ${res.status}`);
  }
  return res;
}

/** The whole body, at most `maxBytes` (a longer one is refused, not cut). */
export async function downloadBytes(url: string, maxBytes: number, opts: DownloadOptions): Promise<Buffer> {
  const res = await request(url, opts);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of Readable.fromWeb(res.body as WebReadableStream<Uint8Array>)) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) throw new FeedDownloadError(`the feed from ${hostOf(url)} is larger than ${maxBytes} bytes`);
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof FeedDownloadError) throw err;
    throw new FeedDownloadError(
      `the download from ${hostOf(url)} broke off or took longer than ${opts.timeoutMs / 1000} s`,
    );
  }
  return Buffer.concat(chunks);
}

/** Chunks of a stream with the first one looked at: gzip (1f 8b) is inflated, anything else passes as it is. */
export async function inflatedIfGzip(source: AsyncIterable<Uint8Array>): Promise<Readable> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  async function* all() {
    if (!first.done) yield Buffer.from(first.value);
    for (let next = await it.next(); !next.done; next = await it.next()) yield Buffer.from(next.value);
  }
  const stream = Readable.from(all(), { objectMode: false });
  const head = first.done ? undefined : first.value;
  if (!(head && head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b)) return stream;
  const gunzip = createGunzip();
  stream.on("error", (err) => gunzip.destroy(err));
  return stream.pipe(gunzip);
}

/** The body as a stream (inflated when gzip), for feeds read as they arrive (EPSS). */
export async function downloadStream(url: string, opts: DownloadOptions): Promise<Readable> {
  const res = await request(url, opts);
  return inflatedIfGzip(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>));
}
