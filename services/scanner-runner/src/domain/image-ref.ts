// What a container scan pulls, without I/O: the scan's image reference (normalised by the scan-orchestrator:
// registry/path[:tag][@digest], docs/scans.md) read into the registry, the repository and the manifest asked for;
// the address the registry is spoken to at; the platform chosen from an image index; and the layer media types
// the runner unpacks.
import { JobInputError } from "./scan-job.ts";

export interface ImageRef {
  /** host[:port], lower-case; docker.io stands for Docker Hub. */
  registry: string;
  repository: string;
  /** A digest (algorithm:hex) when the reference pins one, else the tag. */
  reference: string;
}

const DIGEST = /^sha256:[a-f0-9]{64}$/;
const REPOSITORY = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;

export function imageRefOf(ref: string): ImageRef {
  const text = ref.trim();
  if (!text)
    throw new JobInputError(
      "The container scan names no image; give an image reference such as registry/team/app:1.2.",
    );
  const [name, digest] = text.split("@") as [string, string | undefined];
  const slash = name.indexOf("/");
  if (slash < 0) throw new JobInputError(`The image reference ${text.slice(0, 200)} names no registry.`);
  const registry = name.slice(0, slash).toLowerCase();
  let repository = name.slice(slash + 1);
  let tag = "latest";
  const colon = repository.lastIndexOf(":");
  if (colon >= 0) {
    tag = repository.slice(colon + 1);
    repository = repository.slice(0, colon);
  }
  if (!REPOSITORY.test(repository))
    throw new JobInputError(`The image reference ${text.slice(0, 200)} has a repository path the scanner cannot read.`);
  if (digest !== undefined && !DIGEST.test(digest))
    throw new JobInputError(`The image reference ${text.slice(0, 200)} pins a digest that is not sha256:<64 hex>.`);
  return { registry, repository, reference: digest ?? tag };
}

/** The registry's base URL: https, or plain http for a host the operator names in SCAN_REGISTRY_PLAIN_HTTP_HOSTS. */
export function registryBaseUrl(registry: string, plainHttpHosts: readonly string[]): URL {
  // Docker Hub's API lives on registry-1.docker.io, not on the name people write.
  const host = registry === "docker.io" ? "registry-1.docker.io" : registry;
  const plain = plainHttpHosts.some((h) => h.trim().toLowerCase() === registry);
  return new URL(`${plain ? "http" : "https"}://${host}/`);
}

/** os/architecture[/variant] as SCAN_IMAGE_PLATFORM writes it. */
export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

export function platformOf(text: string): Platform {
  const [os = "linux", architecture = "amd64", variant] = text.trim().toLowerCase().split("/");
  return { os, architecture, ...(variant ? { variant } : {}) };
}

export interface IndexEntry {
  digest: string;
  mediaType?: string;
  platform?: { os?: string; architecture?: string; variant?: string };
}

/** The index entry for `want` (a variant is compared only when both name one), or null. */
export function choosePlatform(entries: readonly IndexEntry[], want: Platform): IndexEntry | null {
  return (
    entries.find(
      (e) =>
        e.platform?.os === want.os &&
        e.platform.architecture === want.architecture &&
        (!want.variant || !e.platform.variant || e.platform.variant === want.variant),
    ) ?? null
  );
}

export const INDEX_TYPES = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
];
export const MANIFEST_TYPES = [
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
];

/** Layer media types unpacked (tar, gzip or zstd; node-tar tells them apart by their first bytes). */
const LAYER_TYPES = new Set([
  "application/vnd.oci.image.layer.v1.tar",
  "application/vnd.oci.image.layer.v1.tar+gzip",
  "application/vnd.oci.image.layer.v1.tar+zstd",
  "application/vnd.docker.image.rootfs.diff.tar.gzip",
  "application/vnd.docker.image.rootfs.diff.tar",
]);
/** Layers a registry may not serve (Windows base layers): skipped, as Docker's own pull does without a mirror. */
const FOREIGN_LAYER_TYPES = new Set([
  "application/vnd.oci.image.layer.nondistributable.v1.tar",
  "application/vnd.oci.image.layer.nondistributable.v1.tar+gzip",
  "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip",
]);

export function layerKind(mediaType: string): "unpack" | "skip" {
  if (LAYER_TYPES.has(mediaType)) return "unpack";
  if (FOREIGN_LAYER_TYPES.has(mediaType)) return "skip";
  throw new JobInputError(`The image has a layer of media type ${mediaType.slice(0, 100)}, which is not a tar layer.`);
}

/** The refusal of a pull whose registry resolves to an address it may not reach. */
export function unreachableRegistryMessage(host: string, address: string): string {
  const shown = host === address ? address : `${host.slice(0, 100)} (${address})`;
  return (
    `The image's registry resolves to ${shown}, a loopback, private or link-local address the scanner does not ` +
    "pull from; an operator may allow it with SCAN_REGISTRY_ALLOWED_HOSTS."
  );
}
