// The directory backend: the shared contract (store-contract.ts) over a temporary directory, and what only a
// directory has (temporary files under .tmp, their sweep, the volume's space).
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, readdir, rm, stat, utimes, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { chunks, describeArtefactStoreContract, MiB } from "./store-contract.ts";

let base: string;
let root: string;
let store: DirectoryArtefactStore;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "sca-artefacts-"));
  root = join(base, "store");
  store = new DirectoryArtefactStore(root);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const temporaryFiles = async () => await readdir(join(root, ".tmp")).catch(() => [] as string[]);

describeArtefactStoreContract("directory", {
  store: () => store,
  expectNoLeftovers: async () => expect(await temporaryFiles()).toEqual([]),
  // Refused before anything was touched: not even the store's own directory exists.
  expectUntouched: async () => expect(await readdir(base)).toEqual([]),
});

describe("directory artefact store", () => {
  it("writes as the bytes arrive instead of gathering them in memory", async () => {
    const sizes: number[] = [];
    const probe = async (index: number) => {
      if (index % 16 !== 15) return;
      const [name] = await temporaryFiles();
      sizes.push(name ? (await stat(join(root, ".tmp", name))).size : 0);
    };
    await store.put("big.bin", chunks(64, MiB, probe), { maxBytes: 64 * MiB });
    // When chunk 16k+15 is asked for, the file already holds nearly everything before it.
    expect(sizes).toHaveLength(4);
    sizes.forEach((size, i) => expect(size).toBeGreaterThanOrEqual((16 * (i + 1) - 2) * MiB));
  });

  it("sweeps temporary files left by writes that never finished, and only old ones", async () => {
    await mkdir(join(root, ".tmp"), { recursive: true });
    await writeFile(join(root, ".tmp", "old.part"), "x");
    await writeFile(join(root, ".tmp", "new.part"), "y");
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(join(root, ".tmp", "old.part"), anHourAgo, anHourAgo);
    expect(await store.removeStaleTemporaryFiles(new Date(Date.now() - 60_000))).toBe(1);
    expect(await temporaryFiles()).toEqual(["new.part"]);
  });

  it("reports the space of its volume", async () => {
    const usage = await store.usage();
    expect(usage.totalBytes).toBeGreaterThan(0);
    expect(usage.freeBytes).toBeGreaterThanOrEqual(0);
    expect(usage.freeBytes).toBeLessThanOrEqual(usage.totalBytes);
  });
});
