// Pulls an image from an OCI (or Docker v2) registry into the job's workspace: the manifest (an image index is
// narrowed to SCAN_IMAGE_PLATFORM), the config and each layer blob, every blob's SHA-256 checked against its digest
// and every byte counted against SCAN_IMAGE_MAX_BYTES. Each connection goes to an address resolved once and checked
// as a clone's is (clone-target.ts: never loopback, private or link-local unless SCAN_REGISTRY_ALLOWED_HOSTS names
// it) and is pinned to it; redirects (registries send blob downloads to storage hosts) are followed by hand, checked
// again, and lose the Authorization header when they leave the registry. Anonymous pulls take the registry's token
// (the Bearer challenge of the distribution spec); a login, when one is given, is sent only to the registry and
// its token realm.
import { createHash } from "node:crypto";
import { lookup } from "node:dns/promises";
import { createWriteStream } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { CloneAllowList } from "../domain/clone-target.ts";
import {
  choosePlatform,
  type ImageRef,
  INDEX_TYPES,
  type IndexEntry,
  MANIFEST_TYPES,
  type Platform,
  registryBaseUrl,
  unreachableRegistryMessage,
} from "../domain/image-ref.ts";
import { JobInputError, TransientJobError } from "../domain/scan-job.ts";

export interface PullLimits {
  allowList: CloneAllowList;
  plainHttpHosts: readonly string[];
  timeoutMs: number;
  /** SCAN_IMAGE_MAX_BYTES: config and layers together. */
  maxBytes: number;
  platform: Platform;
}

export interface RegistryLogin {
  username: string;
  password: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
}

export interface PulledImage {
  /** The manifest's own digest (what the tag pointed at). */
  digest: string;
  config: Buffer;
  layers: Descriptor[];
}

/** Manifests and configs are small documents; past this a registry is not sending one. */
const DOCUMENT_MAX_BYTES = 4 * 1024 ** 2;
const MAX_REDIRECTS = 5;
const ACCEPT = [...INDEX_TYPES, ...MANIFEST_TYPES].join(", ");

/** Resolves `host` once and answers the address every connection to it is pinned to. */
async function checkedAddress(host: string, allowList: CloneAllowList): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(bare)) addresses = [bare];
  else {
    try {
      addresses = (await lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new TransientJobError(`The image's registry (${bare.slice(0, 100)}) does not resolve.`);
    }
  }
  for (const address of addresses)
    if (!allowList.allows(bare, address)) throw new JobInputError(unreachableRegistryMessage(bare, address));
  return addresses[0]!;
}

interface Answer {
  status: number;
  headers: IncomingMessage["headers"];
  body: IncomingMessage;
}

export class RegistryClient {
  private token: string | undefined;
  private spent = 0;
  private readonly base: URL;
  private readonly image: ImageRef;
  private readonly limits: PullLimits;
  private readonly login: RegistryLogin | undefined;
  private readonly signal: AbortSignal;

  constructor(image: ImageRef, limits: PullLimits, login: RegistryLogin | undefined, signal: AbortSignal) {
    this.image = image;
    this.limits = limits;
    this.login = login;
    this.signal = signal;
    this.base = registryBaseUrl(image.registry, limits.plainHttpHosts);
  }

  /** One GET to `url` pinned to a checked address; the caller reads or discards the body. */
  private async send(url: URL, headers: Record<string, string>): Promise<Answer> {
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw new JobInputError("The image's registry redirected the pull to an address that is not http(s).");
    const address = await checkedAddress(url.hostname, this.limits.allowList);
    const pinned: LookupFunction = (_host, options, done) =>
      options.all ? done(null, [{ address, family: isIP(address) }]) : done(null, address, isIP(address));
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<Answer>((ok, fail) => {
      const req = request(url, { method: "GET", headers, lookup: pinned, signal: this.signal, agent: false }, (res) =>
        ok({ status: res.statusCode ?? 0, headers: res.headers, body: res }),
      );
      req.on("error", (err) =>
        fail(
          this.signal.aborted
            ? err
            : new TransientJobError(`The image's registry could not be reached (${url.host.slice(0, 100)}).`),
        ),
      );
      req.end();
    });
  }

  /** GET `path` of the registry, with its token when it asks for one, following checked redirects. */
  private async get(path: string, accept?: string): Promise<Answer> {
    let url = new URL(path, this.base);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const sameHost = url.host === this.base.host;
      const headers: Record<string, string> = { "user-agent": "sca-scanner-runner" };
      if (accept) headers.accept = accept;
      if (sameHost && this.token) headers.authorization = this.token;
      let answer = await this.send(url, headers);
      if (answer.status === 401 && sameHost && !this.token) {
        answer.body.resume();
        this.token = await this.authorize(String(answer.headers["www-authenticate"] ?? ""));
        headers.authorization = this.token;
        answer = await this.send(url, headers);
      }
      if ([301, 302, 303, 307, 308].includes(answer.status) && answer.headers.location) {
        answer.body.resume();
        url = new URL(answer.headers.location, url);
        continue;
      }
      return answer;
    }
    throw new JobInputError("The image's registry redirected the pull too many times.");
  }

  /** The Authorization value the registry's challenge asks for (Bearer token or Basic login). */
  private async authorize(challenge: string): Promise<string> {
    const basic = this.login
      ? `Basic ${Buffer.from(`${this.login.username}:${this.login.password}`).toString("base64")}`
      : undefined;
    const scheme = challenge.split(" ", 1)[0]!.toLowerCase();
    if (scheme === "basic") {
      if (!basic) throw this.loginMissing();
      return basic;
    }
    if (scheme !== "bearer") throw refused();
    const params = Object.fromEntries(
      [...challenge.slice(7).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!.toLowerCase(), m[2]!]),
    );
    if (!params.realm) throw refused();
    let realm: URL;
    try {
      realm = new URL(params.realm);
    } catch {
      throw new JobInputError("The image's registry names a token service that is not a URL.");
    }
    // The login travels to the realm in the clear over http: only where the operator chose plain http.
    if (basic && realm.protocol !== "https:" && !isPlainHttpHost(realm.host, this.limits.plainHttpHosts))
      throw new JobInputError(
        `The image's registry sends its token service to plain http (${realm.host.slice(0, 100)}); the registry ` +
          "login is not sent there unless SCAN_REGISTRY_PLAIN_HTTP_HOSTS names it.",
      );
    if (params.service) realm.searchParams.set("service", params.service);
    realm.searchParams.set("scope", params.scope ?? `repository:${this.image.repository}:pull`);
    const answer = await this.send(realm, {
      "user-agent": "sca-scanner-runner",
      ...(basic ? { authorization: basic } : {}),
    });
    if (answer.status !== 200) {
      answer.body.resume();
      // The token service wants a login (401/403): none kept, or the kept one refused.
      if (answer.status === 401 || answer.status === 403) throw basic ? this.loginRefused() : this.loginMissing();
      throw refused();
    }
    const body = parseJson(await readDocument(answer), "token answer") as { token?: string; access_token?: string };
    const token = body.token ?? body.access_token;
    if (!token) throw refused();
    return `Bearer ${token}`;
  }

  private loginMissing(): JobInputError {
    return new JobInputError(
      `The image's registry (${this.image.registry.slice(0, 100)}) asks for a login, and the project's organization ` +
        "keeps no registry login for it; a super admin adds one under the organization's registry credentials.",
    );
  }

  private loginRefused(): JobInputError {
    return new JobInputError(
      `The image's registry (${this.image.registry.slice(0, 100)}) did not accept the organization's registry login ` +
        "for it; check the username and password kept under the organization's registry credentials.",
    );
  }

  /** The manifest for the scan's platform, its digest, and the config it names. */
  async manifest(): Promise<PulledImage> {
    let reference = this.image.reference;
    for (let depth = 0; depth < 2; depth++) {
      const answer = await this.get(`/v2/${this.image.repository}/manifests/${reference}`, ACCEPT);
      if (answer.status === 404) {
        answer.body.resume();
        throw new JobInputError(
          `The registry has no image ${this.image.registry}/${this.image.repository} at ${reference.slice(0, 80)}.`,
        );
      }
      if (answer.status === 401 || answer.status === 403) {
        answer.body.resume();
        // A login sent and still 401: the registry did not take it (a 403 may be that login lacking the repository).
        throw this.login && answer.status === 401 ? this.loginRefused() : refused();
      }
      if (answer.status !== 200) {
        answer.body.resume();
        throw new TransientJobError(`The image's registry answered ${answer.status} to the manifest request.`);
      }
      const bytes = await readDocument(answer);
      const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
      if (reference.startsWith("sha256:") && digest !== reference)
        throw new JobInputError("The image's manifest does not match the digest it was asked by.");
      const doc = parseJson(bytes, "manifest") as {
        mediaType?: string;
        manifests?: IndexEntry[];
        config?: Descriptor;
        layers?: Descriptor[];
      };
      const type = doc.mediaType ?? String(answer.headers["content-type"] ?? "");
      if (INDEX_TYPES.includes(type) || doc.manifests) {
        const chosen = choosePlatform(doc.manifests ?? [], this.limits.platform);
        if (!chosen)
          throw new JobInputError(
            `The image has no manifest for ${[this.limits.platform.os, this.limits.platform.architecture, this.limits.platform.variant].filter(Boolean).join("/")} (SCAN_IMAGE_PLATFORM).`,
          );
        reference = chosen.digest;
        continue;
      }
      if (!doc.config || !Array.isArray(doc.layers))
        throw new JobInputError("The image's manifest is not an OCI or Docker v2 image manifest.");
      const config = await this.blobBytes(doc.config);
      return { digest, config, layers: doc.layers };
    }
    throw new JobInputError("The image's index points at another index; the scanner reads one level.");
  }

  /** Counts `n` more bytes against SCAN_IMAGE_MAX_BYTES. */
  private spend(n: number): void {
    this.spent += n;
    if (this.spent > this.limits.maxBytes)
      throw new JobInputError(
        `The image is larger than SCAN_IMAGE_MAX_BYTES (${this.limits.maxBytes} bytes); the pull was stopped.`,
      );
  }

  private async blobBytes(blob: Descriptor): Promise<Buffer> {
    if (blob.size > DOCUMENT_MAX_BYTES) throw new JobInputError("The image's config is larger than 4 MiB.");
    const chunks: Buffer[] = [];
    await this.blobTo(blob, async (source) => {
      for await (const chunk of source) chunks.push(chunk as Buffer);
    });
    return Buffer.concat(chunks);
  }

  /** Downloads `blob` into `file`, its size and SHA-256 checked against the descriptor. */
  async blobToFile(blob: Descriptor, file: string): Promise<void> {
    await this.blobTo(blob, (source) =>
      pipeline(source, createWriteStream(file, { mode: 0o600 }), { signal: this.signal }),
    );
  }

  private async blobTo(blob: Descriptor, sink: (source: Transform) => Promise<unknown>): Promise<void> {
    if (!/^sha256:[a-f0-9]{64}$/.test(blob.digest))
      throw new JobInputError("The image's manifest names a blob by a digest that is not sha256.");
    if (!Number.isSafeInteger(blob.size) || blob.size < 0)
      throw new JobInputError("The image's manifest names a blob without a size.");
    this.spend(blob.size);
    const answer = await this.get(`/v2/${this.image.repository}/blobs/${blob.digest}`);
    if (answer.status !== 200) {
      answer.body.resume();
      if (answer.status === 404) throw new JobInputError(`The registry is missing the image's blob ${blob.digest}.`);
      throw new TransientJobError(`The image's registry answered ${answer.status} to a blob request.`);
    }
    const hash = createHash("sha256");
    let size = 0;
    const check = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > blob.size)
          return done(new JobInputError(`The registry sent more bytes than blob ${blob.digest} has.`));
        hash.update(chunk);
        done(null, chunk);
      },
      flush(done) {
        if (size !== blob.size || `sha256:${hash.digest("hex")}` !== blob.digest)
          return done(new JobInputError(`The registry sent blob ${blob.digest} with other content than its digest.`));
        done();
      },
    });
    answer.body.pipe(check);
    answer.body.on("error", (err) => check.destroy(err));
    await sink(check);
  }
}

const isPlainHttpHost = (host: string, plainHttpHosts: readonly string[]) =>
  plainHttpHosts.some((h) => h.trim().toLowerCase() === host.toLowerCase());

function refused(): JobInputError {
  return new JobInputError(
    "The image's registry refused the pull (no such repository, or the registry login is missing or not accepted).",
  );
}

async function readDocument(answer: Answer): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer.body) {
    size += (chunk as Buffer).length;
    if (size > DOCUMENT_MAX_BYTES) {
      answer.body.destroy();
      throw new JobInputError("The image's registry sent a manifest larger than 4 MiB.");
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new JobInputError(`The image's ${what} is not valid JSON.`);
  }
}
