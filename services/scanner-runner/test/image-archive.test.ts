// Uploaded image archives read into a real workspace (docs/container-scans.md, "Uploaded image archives"): archives
// in a real artefact store (a directory), built here as `docker save` and skopeo write them (the test kit), the tree
// read back from disk. What tools write besides the plain case: a docker save whose repeated layer is a link to the
// first, an archive of several images picked by the scan's ref, an OCI index of several platforms; and what a hostile
// or damaged archive gets: another SHA-256 than the upload's, a blob that is not its digest, too many entries.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import { create } from "@bufbuild/protobuf";
import { ScanArtefactSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { dockerSaveOf, tarOf, type TarEntry } from "@sca/testkit";
import { CloneAllowList } from "../src/domain/clone-target.ts";
import { platformOf } from "../src/domain/image-ref.ts";
import type { ImageLimits } from "../src/fetch/container-image.ts";
import { imageArchiveTree } from "../src/fetch/image-archive.ts";
import { openWorkspace, type Workspace } from "../src/sandbox/workspace.ts";

let root: string;
let store: DirectoryArtefactStore;
const open: Workspace[] = [];
let n = 0;

const limits = (over: Partial<ImageLimits> = {}): ImageLimits => ({
  allowList: new CloneAllowList([]),
  plainHttpHosts: [],
  timeoutMs: 30_000,
  maxBytes: 64 * 1024 ** 2,
  maxEntries: 1000,
  maxExpandedBytes: 16 * 1024 ** 2,
  platform: platformOf("linux/amd64"),
  ...over,
});

const hex = (b: Buffer) => createHash("sha256").update(b).digest("hex");

async function read(archive: Buffer, ref = "", over: Partial<ImageLimits> = {}, sha256 = hex(archive)) {
  const key = `uploads/p/${++n}`;
  const stored = await store.put(key, bytesSource(archive), { maxBytes: 1024 ** 3 });
  const ws = await openWorkspace(join(root, "work"), 65534);
  open.push(ws);
  const artefact = create(ScanArtefactSchema, { key, sizeBytes: BigInt(stored.sizeBytes), sha256 });
  const tree = await imageArchiveTree(ws, store, artefact, ref, limits(over), AbortSignal.timeout(30_000));
  return { ws, tree };
}

const layer = (entries: TarEntry[]) => tarOf(entries);

/** An OCI layout of images given as [annotations, platform, layers] (the manifests straight in index.json). */
async function ociLayout(
  images: { ref?: string; platform?: { os: string; architecture: string }; layers: Buffer[] }[],
) {
  const entries: TarEntry[] = [{ name: "oci-layout", data: '{"imageLayoutVersion":"1.0.0"}' }];
  const manifests = [];
  for (const image of images) {
    const config = Buffer.from(JSON.stringify({ os: "linux", architecture: "amd64", rootfs: { type: "layers" } }));
    entries.push({ name: `blobs/sha256/${hex(config)}`, data: config });
    const layers = image.layers.map((l) => {
      entries.push({ name: `blobs/sha256/${hex(l)}`, data: l });
      return { mediaType: "application/vnd.oci.image.layer.v1.tar", digest: `sha256:${hex(l)}`, size: l.length };
    });
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: {
          mediaType: "application/vnd.oci.image.config.v1+json",
          digest: `sha256:${hex(config)}`,
          size: config.length,
        },
        layers,
      }),
    );
    entries.push({ name: `blobs/sha256/${hex(manifest)}`, data: manifest });
    manifests.push({
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      digest: `sha256:${hex(manifest)}`,
      size: manifest.length,
      ...(image.platform ? { platform: image.platform } : {}),
      ...(image.ref ? { annotations: { "io.containerd.image.name": image.ref } } : {}),
    });
  }
  entries.push({ name: "index.json", data: JSON.stringify({ schemaVersion: 2, manifests }) });
  return { entries, archive: await tarOf(entries) };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "sca-image-archive-"));
  store = new DirectoryArtefactStore(join(root, "store"));
});

afterAll(async () => {
  for (const ws of open) await ws.remove();
  await rm(root, { recursive: true, force: true });
});

describe("reading an uploaded image archive", () => {
  it("follows a docker save's link to a repeated layer, inside the archive only", async () => {
    const base = await layer([{ name: "etc/os-release", data: "ID=debian\n" }]);
    const saved = await dockerSaveOf({ layers: [base] }, "team/app:1");
    // As older docker save wrote a repeated layer: a second layer directory whose layer.tar links to the first.
    const id = hex(base);
    const manifest = [{ Config: "cfg.json", RepoTags: ["team/app:1"], Layers: [`${id}/layer.tar`, "again/layer.tar"] }];
    const archive = await tarOf([
      { name: `${id}/layer.tar`, data: base },
      { name: "again/layer.tar", symlinkTo: `../${id}/layer.tar` },
      { name: "cfg.json", data: "{}" },
      { name: "manifest.json", data: JSON.stringify(manifest) },
    ]);
    const { ws, tree } = await read(archive);
    expect(await readFile(join(ws.tree, "etc/os-release"), "utf8")).toBe("ID=debian\n");
    expect(tree).toMatchObject({ format: "docker-save", layers: 2, image: "team/app:1" });
    expect((await read(saved)).tree).toMatchObject({ format: "docker-save", layers: 1 });

    // A link leading out of the archive names nothing: the layer is missing.
    const outside = await tarOf([
      { name: "l/layer.tar", symlinkTo: "../../../etc/passwd" },
      { name: "cfg.json", data: "{}" },
      { name: "manifest.json", data: JSON.stringify([{ Config: "cfg.json", Layers: ["l/layer.tar"] }]) },
    ]);
    await expect(read(outside)).rejects.toThrow(
      "The uploaded image archive names the layer l/layer.tar, which it does not hold.",
    );
  });

  it("picks the image the ref names from several, and the platform from an index", async () => {
    const a = await layer([{ name: "which", data: "a" }]);
    const b = await layer([{ name: "which", data: "b" }]);
    const two = await ociLayout([
      { ref: "registry.example.com/team/a:1", layers: [a] },
      { ref: "registry.example.com/team/b:1", layers: [b] },
    ]);
    await expect(read(two.archive)).rejects.toThrow(
      "The uploaded image archive holds 2 images; name one with the scan's ref (its tag or image name).",
    );
    const picked = await read(two.archive, "registry.example.com/team/b:1");
    expect(await readFile(join(picked.ws.tree, "which"), "utf8")).toBe("b");

    const platforms = await ociLayout([
      { platform: { os: "linux", architecture: "arm64" }, layers: [a] },
      { platform: { os: "linux", architecture: "amd64" }, layers: [b] },
    ]);
    const amd64 = await read(platforms.archive);
    expect(await readFile(join(amd64.ws.tree, "which"), "utf8")).toBe("b");
    const arm64 = await read(platforms.archive, "", { platform: platformOf("linux/arm64") });
    expect(await readFile(join(arm64.ws.tree, "which"), "utf8")).toBe("a");
  });

  it("refuses an archive that is not the upload, a blob that is not its digest, and too many entries", async () => {
    const a = await layer([{ name: "f", data: "x" }]);
    const { entries, archive } = await ociLayout([{ layers: [a] }]);
    await expect(read(archive, "", {}, "0".repeat(64))).rejects.toThrow(
      "The uploaded image archive does not match the size and SHA-256 recorded when it was uploaded; upload it again.",
    );
    const swapped = entries.map((e) =>
      e.name === `blobs/sha256/${hex(a)}` ? { ...e, data: Buffer.from(a).fill(0x41, 512, 513) } : e,
    );
    await expect(read(await tarOf(swapped))).rejects.toThrow(
      `The uploaded image archive holds blob sha256:${hex(a)} with other content than its digest.`,
    );
    await expect(read(archive, "", { maxEntries: 3 })).rejects.toThrow(
      "The uploaded image archive holds more than 3 entries (SCAN_IMAGE_MAX_ENTRIES); it was not scanned.",
    );
  });
});
