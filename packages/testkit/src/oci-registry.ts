// A real OCI registry for tests that pull images: go-containerregistry's, served in memory by `crane registry serve`
// (scripts/setup/oci-registry.sh; the OCI distribution API) on a free loopback port, and the client half a test needs
// to put images in it through that same API (blob uploads, manifests, image indexes). Layers are tar archives the
// test writes entry by entry with tar-stream, hostile ones included (`..` names, links leading out, whiteouts).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { pack } from "tar-stream";
import { spawnOnFreePort } from "./spawn-on-free-port.ts";
import { toolsDir, pinnedVersion } from "./tools.ts";

export interface TarEntry {
  name: string;
  /** File contents; absent with no link: a directory. */
  data?: string | Buffer;
  symlinkTo?: string;
  hardLinkTo?: string;
  mode?: number;
}

/** A tar archive of `entries`, exactly as written (names are not checked or normalised). */
export async function tarOf(entries: readonly TarEntry[]): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on("data", (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((ok, fail) => (tar.on("end", ok), tar.on("error", fail)));
  for (const e of entries) {
    if (e.symlinkTo !== undefined) tar.entry({ name: e.name, type: "symlink", linkname: e.symlinkTo });
    else if (e.hardLinkTo !== undefined) tar.entry({ name: e.name, type: "link", linkname: e.hardLinkTo });
    else if (e.data === undefined) tar.entry({ name: e.name, type: "directory", mode: e.mode ?? 0o755 });
    else tar.entry({ name: e.name, mode: e.mode ?? 0o644 }, typeof e.data === "string" ? Buffer.from(e.data) : e.data);
  }
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}

const sha256 = (b: Buffer) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

export interface TestImage {
  /** Layers in order, tar archives (gzipped on push). */
  layers: Buffer[];
  /** The image config's fields besides rootfs (default: linux/amd64). */
  config?: Record<string, unknown>;
}

export interface TestOciRegistry {
  /** localhost:<port>: what an image reference names. */
  host: string;
  port: number;
  /** Pushes `image` as `repository:tag`; answers the manifest's digest. */
  push(repository: string, tag: string, image: TestImage): Promise<string>;
  /** Pushes an image index of `platforms` (each an image) as `repository:tag`; answers the index's digest. */
  pushIndex(
    repository: string,
    tag: string,
    platforms: { os: string; architecture: string; image: TestImage }[],
  ): Promise<string>;
  stop(): Promise<void>;
}

export async function startOciRegistry(): Promise<TestOciRegistry> {
  const bin = join(toolsDir(), `oci-registry-${pinnedVersion("OCI_REGISTRY_VERSION")}`, "crane");
  const running = await spawnOnFreePort(
    (port) => spawn(bin, ["registry", "serve", "--address", `localhost:${port}`], { stdio: "ignore" }),
    async (port) => (await fetch(`http://127.0.0.1:${port}/v2/`)).status === 200,
  );
  if (!running) throw new Error(`the OCI registry (${bin}) did not start; run ./dev setup`);
  const { child, port } = running;
  const origin = `http://127.0.0.1:${port}`;

  const putBlob = async (repository: string, bytes: Buffer): Promise<string> => {
    const digest = sha256(bytes);
    const started = await fetch(`${origin}/v2/${repository}/blobs/uploads/`, { method: "POST" });
    if (started.status !== 202) throw new Error(`blob upload refused: ${started.status}`);
    const location = new URL(started.headers.get("location")!, origin);
    location.searchParams.set("digest", digest);
    const put = await fetch(location, {
      method: "PUT",
      headers: { "content-type": "application/octet-stream" },
      body: new Uint8Array(bytes),
    });
    if (put.status !== 201) throw new Error(`blob upload failed: ${put.status} ${await put.text()}`);
    return digest;
  };
  const putManifest = async (repository: string, reference: string, mediaType: string, doc: unknown) => {
    const bytes = Buffer.from(JSON.stringify(doc));
    const res = await fetch(`${origin}/v2/${repository}/manifests/${reference}`, {
      method: "PUT",
      headers: { "content-type": mediaType },
      body: new Uint8Array(bytes),
    });
    if (res.status !== 201) throw new Error(`manifest upload failed: ${res.status} ${await res.text()}`);
    return { digest: sha256(bytes), size: bytes.length };
  };
  const pushImage = async (repository: string, reference: string, image: TestImage) => {
    const layers = [];
    const diffIds = [];
    for (const tar of image.layers) {
      const gz = gzipSync(tar);
      diffIds.push(sha256(tar));
      layers.push({
        mediaType: "application/vnd.oci.image.layer.v1.tar+gzip",
        digest: await putBlob(repository, gz),
        size: gz.length,
      });
    }
    const config = Buffer.from(
      JSON.stringify({
        architecture: "amd64",
        os: "linux",
        ...image.config,
        rootfs: { type: "layers", diff_ids: diffIds },
      }),
    );
    const configDigest = await putBlob(repository, config);
    return putManifest(repository, reference, "application/vnd.oci.image.manifest.v1+json", {
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: configDigest, size: config.length },
      layers,
    });
  };

  return {
    host: `localhost:${port}`,
    port,
    push: async (repository, tag, image) => (await pushImage(repository, tag, image)).digest,
    pushIndex: async (repository, tag, platforms) => {
      const manifests = [];
      for (const p of platforms) {
        const pushed = await pushImage(repository, `${tag}-${p.os}-${p.architecture}`, {
          ...p.image,
          config: { os: p.os, architecture: p.architecture, ...p.image.config },
        });
        manifests.push({
          mediaType: "application/vnd.oci.image.manifest.v1+json",
          ...pushed,
          platform: { os: p.os, architecture: p.architecture },
        });
      }
      const index = await putManifest(repository, tag, "application/vnd.oci.image.index.v1+json", {
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.index.v1+json",
        manifests,
      });
      return index.digest;
    },
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((ok) => (child.exitCode !== null ? ok(undefined) : child.once("exit", ok)));
    },
  };
}
