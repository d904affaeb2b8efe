// Image archives as tools write them, for tests of uploaded images: an OCI image layout tar of an image fetched
// from a registry through the distribution API (what `skopeo copy docker://... oci-archive:...` writes), and a
// `docker save` tar of an image's layers (manifest.json, the config, one directory per layer, as Docker up to 24
// wrote it).
import { createHash } from "node:crypto";
import { tarOf, type TarEntry, type TestImage } from "./oci-registry.ts";

const hex = (b: Buffer) => createHash("sha256").update(b).digest("hex");

const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";

/** An OCI image layout (oci-layout, index.json, blobs/sha256/...) of `repository:tag` pulled from `origin`. */
export async function ociLayoutFromRegistry(origin: string, repository: string, tag: string): Promise<Buffer> {
  const res = await fetch(`${origin}/v2/${repository}/manifests/${tag}`, { headers: { accept: OCI_MANIFEST } });
  if (res.status !== 200) throw new Error(`manifest ${repository}:${tag}: ${res.status}`);
  const manifest = Buffer.from(await res.arrayBuffer());
  const doc = JSON.parse(manifest.toString("utf8")) as { config: { digest: string }; layers: { digest: string }[] };
  const entries: TarEntry[] = [{ name: "oci-layout", data: JSON.stringify({ imageLayoutVersion: "1.0.0" }) }];
  for (const { digest } of [doc.config, ...doc.layers]) {
    const blob = await fetch(`${origin}/v2/${repository}/blobs/${digest}`);
    if (blob.status !== 200) throw new Error(`blob ${digest}: ${blob.status}`);
    entries.push({ name: `blobs/sha256/${digest.slice(7)}`, data: Buffer.from(await blob.arrayBuffer()) });
  }
  entries.push({ name: `blobs/sha256/${hex(manifest)}`, data: manifest });
  const index = {
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.index.v1+json",
    manifests: [
      {
        mediaType: OCI_MANIFEST,
        digest: `sha256:${hex(manifest)}`,
        size: manifest.length,
        annotations: { "org.opencontainers.image.ref.name": tag },
      },
    ],
  };
  entries.push({ name: "index.json", data: JSON.stringify(index) });
  return tarOf(entries);
}

/** A `docker save` archive of `image` tagged `repoTag` (uncompressed layer tars, one directory per layer). */
export async function dockerSaveOf(image: TestImage, repoTag: string): Promise<Buffer> {
  const layerIds = image.layers.map(hex);
  const config = Buffer.from(
    JSON.stringify({
      architecture: "amd64",
      os: "linux",
      ...image.config,
      rootfs: { type: "layers", diff_ids: layerIds.map((id) => `sha256:${id}`) },
    }),
  );
  const configName = `${hex(config)}.json`;
  const entries: TarEntry[] = [];
  image.layers.forEach((layer, i) => {
    entries.push({ name: `${layerIds[i]}/` }, { name: `${layerIds[i]}/layer.tar`, data: layer });
    entries.push({ name: `${layerIds[i]}/VERSION`, data: "1.0" });
  });
  entries.push({ name: configName, data: config });
  entries.push({
    name: "manifest.json",
    data: JSON.stringify([
      { Config: configName, RepoTags: [repoTag], Layers: layerIds.map((id) => `${id}/layer.tar`) },
    ]),
  });
  entries.push({ name: "repositories", data: JSON.stringify({}) });
  return tarOf(entries);
}
