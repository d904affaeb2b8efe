// A container scan's tree from an uploaded image archive instead of a pull: a `docker save` tar (manifest.json,
// a config and layer tars) or an OCI image layout tar (oci-layout, index.json, blobs/sha256/...), gzipped or not.
// The archive streams from the artefact store (its size and SHA-256 checked against the upload) through node-tar's
// Parser; each regular file lands in the workspace under a number, never under its name, so an archive's names
// cannot reach anything (`..` names refuse the archive all the same, as a layer's do). Links inside the archive
// (older `docker save` links repeated layers) are followed by name, inside the archive only. The image is then read
// like a pulled one: the manifest (OCI: digests checked, an index narrowed to SCAN_IMAGE_PLATFORM), and its layers
// stacked by image-layers.ts under the same limits.
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join, posix } from "node:path";
import { pipeline } from "node:stream/promises";
import type { ArtefactStore } from "@sca/artefacts";
import type { ScanArtefact } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { ReadEntry } from "tar";
import { choosePlatform, INDEX_TYPES, layerKind, type IndexEntry } from "../domain/image-ref.ts";
import { JobInputError } from "../domain/scan-job.ts";
import type { Workspace } from "../sandbox/workspace.ts";
import type { ImageLimits, PulledTree } from "./container-image.ts";
import { LayerStack } from "./image-layers.ts";
import type { Descriptor } from "./registry-client.ts";
import { chunkCheck, sizeAndDigest } from "./stream-checks.ts";
import { readTarEntries } from "./tar-entries.ts";

const DOCUMENT_MAX_BYTES = 4 * 1024 ** 2;
const MAX_LINK_HOPS = 8;

/** The archive's regular files by name (each stored under a number), and its links by name. */
interface ArchiveFiles {
  files: Map<string, { path: string; size: number }>;
  links: Map<string, string>;
}

const nameOf = (raw: string) =>
  raw
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .join("/");

function archiveError(what: string): JobInputError {
  return new JobInputError(`The uploaded image archive ${what}`);
}

/** Streams the upload into the workspace: every regular file under a number, size and SHA-256 checked. */
async function unpackArchive(
  ws: Workspace,
  store: ArtefactStore,
  artefact: ScanArtefact,
  limits: ImageLimits,
  signal: AbortSignal,
): Promise<ArchiveFiles> {
  if (artefact.sizeBytes > BigInt(limits.maxBytes))
    throw archiveError(`is larger than SCAN_IMAGE_MAX_BYTES (${limits.maxBytes} bytes).`);
  const source = await store.get(artefact.key);
  if (!source) throw archiveError("is no longer in the artefact store; upload it again.");
  const dir = join(ws.root, "archive");
  await mkdir(dir, { mode: 0o700 });
  const found: ArchiveFiles = { files: new Map(), links: new Map() };
  const check = sizeAndDigest(limits.maxBytes, mismatch);
  let entries = 0;
  let written = 0;
  const each = async (entry: ReadEntry) => {
    const name = nameOf(entry.path);
    if (name.split("/").includes(".."))
      throw archiveError(`holds an entry climbing out of the tree with .. (${entry.path.slice(0, 200)}).`);
    entries += 1;
    if (entries > limits.maxEntries)
      throw archiveError(`holds more than ${limits.maxEntries} entries (SCAN_IMAGE_MAX_ENTRIES); it was not scanned.`);
    if (entry.type === "SymbolicLink" || entry.type === "Link") {
      const target = entry.linkpath ?? "";
      // A symbolic link names its target from its own directory, a hard link from the archive's root.
      const resolved =
        entry.type === "SymbolicLink" && !target.startsWith("/")
          ? posix.normalize(posix.join(posix.dirname(name), target))
          : nameOf(target);
      found.links.set(name, nameOf(resolved));
      return void entry.resume();
    }
    if (entry.type !== "File" && entry.type !== "OldFile" && entry.type !== "ContiguousFile")
      return void entry.resume();
    // Numbered by entry, not by name: a name the archive repeats (the later entry wins) gets a file of its own.
    const path = join(dir, String(entries));
    let bytes = 0;
    const count = chunkCheck((chunk) => {
      bytes += chunk.length;
      written += chunk.length;
      return written > limits.maxExpandedBytes
        ? archiveError(
            `expands past SCAN_IMAGE_MAX_EXPANDED_BYTES (${limits.maxExpandedBytes} bytes); it was not scanned.`,
          )
        : undefined;
    });
    await pipeline(entry, count, createWriteStream(path, { mode: 0o600 }));
    found.files.set(name, { path, size: bytes });
  };
  await readTarEntries(source, [check.stream], each, signal, (reason) =>
    archiveError(`is not a readable tar archive (${reason}).`),
  );
  if (BigInt(check.size()) !== artefact.sizeBytes || check.sha256() !== artefact.sha256.toLowerCase()) throw mismatch();
  return found;
}

function mismatch(): JobInputError {
  return archiveError("does not match the size and SHA-256 recorded when it was uploaded; upload it again.");
}

class ArchiveReader {
  private readonly found: ArchiveFiles;

  constructor(found: ArchiveFiles) {
    this.found = found;
  }

  /** The file `name` names, links followed inside the archive; null when there is none. */
  file(name: string): { path: string; size: number } | null {
    let at = nameOf(name);
    for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
      const file = this.found.files.get(at);
      if (file) return file;
      const next = this.found.links.get(at);
      if (next === undefined) return null;
      at = next;
    }
    return null;
  }

  has(name: string): boolean {
    return this.file(name) !== null;
  }

  async json(name: string): Promise<unknown> {
    const file = this.file(name);
    if (!file) throw archiveError(`names ${name.slice(0, 200)}, which it does not hold.`);
    if (file.size > DOCUMENT_MAX_BYTES) throw archiveError(`holds a ${name.slice(0, 200)} larger than 4 MiB.`);
    try {
      return JSON.parse(await readFile(file.path, "utf8"));
    } catch {
      throw archiveError(`holds a ${name.slice(0, 200)} that is not valid JSON.`);
    }
  }

  /** An OCI layout's blob of `descriptor`, its size and SHA-256 checked. */
  async blob(descriptor: Descriptor): Promise<string> {
    const hex = /^sha256:([a-f0-9]{64})$/.exec(descriptor.digest)?.[1];
    if (!hex) throw archiveError("names a blob by a digest that is not sha256.");
    const file = this.file(`blobs/sha256/${hex}`);
    if (!file) throw archiveError(`is missing the blob ${descriptor.digest}.`);
    if (file.size !== descriptor.size || (await sha256Of(file.path)) !== hex)
      throw archiveError(`holds blob ${descriptor.digest} with other content than its digest.`);
    return file.path;
  }

  async blobJson(descriptor: Descriptor): Promise<unknown> {
    if (descriptor.size > DOCUMENT_MAX_BYTES) throw archiveError("holds a manifest larger than 4 MiB.");
    const path = await this.blob(descriptor);
    try {
      return JSON.parse(await readFile(path, "utf8"));
    } catch {
      throw archiveError(`holds a manifest ${descriptor.digest} that is not valid JSON.`);
    }
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** An image reference without its registry's defaults, to compare names an archive keeps with the scan's ref. */
function canonicalName(text: string): string {
  let name = text.trim();
  if (!name.includes("@") && !/:[^/]+$/.test(name)) name += ":latest";
  const slash = name.indexOf("/");
  const first = slash < 0 ? "" : name.slice(0, slash);
  if (slash < 0 || !(first.includes(".") || first.includes(":") || first === "localhost"))
    name = `docker.io/${slash < 0 ? "library/" : ""}${name}`;
  return name.replace(/^(index\.docker\.io|registry-1\.docker\.io)\//, "docker.io/");
}

interface ArchivedImage {
  format: "docker-save" | "oci-layout";
  name: string;
  digest: string;
  /** Layer files in order, with the media type when the archive says it. */
  layers: { path: string; mediaType?: string }[];
  layerCount: number;
}

/** The image of an OCI layout: the index entry the scan's ref names (or the only one), narrowed to the platform. */
async function ociImage(reader: ArchiveReader, ref: string, limits: ImageLimits): Promise<ArchivedImage> {
  const index = (await reader.json("index.json")) as { manifests?: (IndexEntry & Descriptor & Annotated)[] };
  let entries = index.manifests ?? [];
  if (ref) {
    const want = canonicalName(ref);
    const tag = /:([^/:@]+)$/.exec(ref)?.[1];
    entries = entries.filter((e) => {
      const a = e.annotations ?? {};
      const full = a["io.containerd.image.name"];
      const short = a["org.opencontainers.image.ref.name"];
      return (full !== undefined && canonicalName(full) === want) || (short !== undefined && short === tag);
    });
    if (entries.length === 0) throw archiveError(`holds no image named ${ref.slice(0, 200)}.`);
  }
  let chosen: (IndexEntry & Descriptor) | null = entries.length === 1 ? entries[0]! : null;
  if (!chosen) chosen = choosePlatform(entries, limits.platform) as (IndexEntry & Descriptor) | null;
  if (!chosen)
    throw archiveError(
      entries.length === 0
        ? "holds no image."
        : `holds ${entries.length} images; name one with the scan's ref (its tag or image name).`,
    );
  for (let depth = 0; depth < 3; depth++) {
    const doc = (await reader.blobJson(chosen)) as {
      mediaType?: string;
      manifests?: (IndexEntry & Descriptor)[];
      config?: Descriptor;
      layers?: Descriptor[];
    };
    if (INDEX_TYPES.includes(doc.mediaType ?? chosen.mediaType ?? "") || doc.manifests) {
      const next = choosePlatform(doc.manifests ?? [], limits.platform) as (IndexEntry & Descriptor) | null;
      if (!next) throw archiveError("has no manifest for SCAN_IMAGE_PLATFORM.");
      chosen = next;
      continue;
    }
    if (!doc.config || !Array.isArray(doc.layers))
      throw archiveError("names a manifest that is not an image manifest.");
    await reader.blob(doc.config);
    const layers = [];
    for (const layer of doc.layers) {
      if (layerKind(String(layer.mediaType)) === "skip") continue;
      layers.push({ path: await reader.blob(layer), mediaType: layer.mediaType });
    }
    return { format: "oci-layout", name: ref, digest: chosen.digest, layers, layerCount: doc.layers.length };
  }
  throw archiveError("nests image indexes deeper than the scanner reads.");
}

interface Annotated {
  annotations?: Record<string, string>;
}

/** The image of a `docker save` archive: the manifest.json entry the scan's ref names (or the only one). */
async function dockerSaveImage(reader: ArchiveReader, ref: string): Promise<ArchivedImage> {
  const manifest = await reader.json("manifest.json");
  if (!Array.isArray(manifest)) throw archiveError("has a manifest.json that is not a list of images.");
  let images = manifest as { Config?: string; RepoTags?: string[] | null; Layers?: string[] }[];
  if (ref) {
    const want = canonicalName(ref);
    images = images.filter((i) => (i.RepoTags ?? []).some((t) => canonicalName(t) === want));
    if (images.length === 0) throw archiveError(`holds no image named ${ref.slice(0, 200)}.`);
  }
  if (images.length !== 1)
    throw archiveError(
      images.length === 0
        ? "holds no image."
        : `holds ${images.length} images; name one with the scan's ref (its tag or image name).`,
    );
  const image = images[0]!;
  if (typeof image.Config !== "string" || !Array.isArray(image.Layers))
    throw archiveError("has a manifest.json entry without Config and Layers.");
  const config = reader.file(image.Config);
  if (!config) throw archiveError(`names ${image.Config.slice(0, 200)}, which it does not hold.`);
  const layers = image.Layers.map((name) => {
    const file = reader.file(String(name));
    if (!file) throw archiveError(`names the layer ${String(name).slice(0, 200)}, which it does not hold.`);
    return { path: file.path };
  });
  return {
    format: "docker-save",
    name: ref || image.RepoTags?.[0] || "",
    digest: `sha256:${await sha256Of(config.path)}`,
    layers,
    layerCount: layers.length,
  };
}

/** Reads the uploaded image archive into the workspace's tree; `ref` (may be "") picks an image of several. */
export async function imageArchiveTree(
  ws: Workspace,
  store: ArtefactStore,
  artefact: ScanArtefact,
  ref: string,
  limits: ImageLimits,
  jobSignal: AbortSignal,
): Promise<PulledTree & { format: string }> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = AbortSignal.any([jobSignal, timeout]);
  try {
    const reader = new ArchiveReader(await unpackArchive(ws, store, artefact, limits, signal));
    let image: ArchivedImage;
    if (reader.has("oci-layout") && reader.has("index.json")) image = await ociImage(reader, ref, limits);
    else if (reader.has("manifest.json")) image = await dockerSaveImage(reader, ref);
    else
      throw archiveError(
        "is neither a docker save archive (manifest.json) nor an OCI image layout (oci-layout and index.json).",
      );
    const stack = new LayerStack(ws, limits);
    let index = 0;
    for (const layer of image.layers) {
      index += 1;
      await stack.apply(layer.path, index, signal);
    }
    await stack.dropEscapingLinks();
    return {
      format: image.format,
      image: image.name || "the uploaded image",
      digest: image.digest,
      layers: image.layerCount,
      downloaded: Number(artefact.sizeBytes),
      ...stack.tally,
    };
  } catch (err) {
    jobSignal.throwIfAborted();
    if (timeout.aborted)
      throw archiveError(`was not read within SCAN_IMAGE_PULL_TIMEOUT_SECONDS (${limits.timeoutMs / 1000} s).`);
    throw err;
  }
}
