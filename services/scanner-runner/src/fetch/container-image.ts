// A container scan's tree: the scan's image pulled from its registry (registry-client.ts) and its layers stacked
// into the workspace's tree (image-layers.ts), one layer on disk at a time, all under SCAN_IMAGE_PULL_TIMEOUT_SECONDS.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { imageRefOf, layerKind } from "../domain/image-ref.ts";
import { JobInputError } from "../domain/scan-job.ts";
import type { Workspace } from "../sandbox/workspace.ts";
import { LayerStack, type LayerLimits, type UnpackTally } from "./image-layers.ts";
import { RegistryClient, type PullLimits, type RegistryLogin } from "./registry-client.ts";

export type ImageLimits = PullLimits & LayerLimits;

export interface PulledTree extends UnpackTally {
  image: string;
  digest: string;
  layers: number;
  downloaded: number;
}

export async function pullImageTree(
  ws: Workspace,
  ref: string,
  limits: ImageLimits,
  login: RegistryLogin | undefined,
  jobSignal: AbortSignal,
): Promise<PulledTree> {
  const image = imageRefOf(ref);
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = AbortSignal.any([jobSignal, timeout]);
  try {
    const client = new RegistryClient(image, limits, login, signal);
    const manifest = await client.manifest();
    const stack = new LayerStack(ws, limits);
    let downloaded = manifest.config.length;
    let index = 0;
    for (const layer of manifest.layers) {
      index += 1;
      if (layerKind(String(layer.mediaType)) === "skip") continue;
      const file = join(ws.root, `layer-${index}.blob`);
      await client.blobToFile(layer, file);
      downloaded += layer.size;
      try {
        await stack.apply(file, index, signal);
      } finally {
        await rm(file, { force: true });
      }
    }
    await stack.dropEscapingLinks();
    return {
      image: `${image.registry}/${image.repository}`,
      digest: manifest.digest,
      layers: manifest.layers.length,
      downloaded,
      ...stack.tally,
    };
  } catch (err) {
    jobSignal.throwIfAborted();
    if (timeout.aborted)
      throw new JobInputError(
        `The image was not pulled within SCAN_IMAGE_PULL_TIMEOUT_SECONDS (${limits.timeoutMs / 1000} s).`,
      );
    throw err;
  }
}
