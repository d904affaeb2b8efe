import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { ProblemError } from "@sca/problem";
import { bytesSource, DirectoryArtefactStore, InvalidArtefactKey } from "@sca/artefacts";

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

const MiB = 1024 * 1024;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** `count` chunks of `size` bytes (a pattern that changes per chunk), made one at a time as the store pulls them. */
async function* chunks(
  count: number,
  size: number,
  onChunk?: (index: number) => Promise<void> | void,
): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < count; i++) {
    await onChunk?.(i);
    yield Buffer.alloc(size, i % 251);
  }
}

function sha256Of(count: number, size: number): string {
  const hash = createHash("sha256");
  for (let i = 0; i < count; i++) hash.update(Buffer.alloc(size, i % 251));
  return hash.digest("hex");
}

const temporaryFiles = async () => await readdir(join(root, ".tmp")).catch(() => [] as string[]);

describe("directory artefact store", () => {
  it("stores and streams back an artefact, with its size and SHA-256", async () => {
    const stored = await store.put("uploads/p1/sbom-1.json", chunks(5, MiB), { maxBytes: 10 * MiB });
    expect(stored).toEqual({ key: "uploads/p1/sbom-1.json", sizeBytes: 5 * MiB, sha256: sha256Of(5, MiB) });
    const back = await store.get("uploads/p1/sbom-1.json");
    expect(back).not.toBeNull();
    const bytes = await readAll(back!);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(stored.sha256);
    expect(await store.stat("uploads/p1/sbom-1.json")).toMatchObject({ sizeBytes: 5 * MiB });
    expect(await temporaryFiles()).toEqual([]);
  });

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

  it("answers null for an absent key and deletes idempotently", async () => {
    expect(await store.get("nothing/here")).toBeNull();
    expect(await store.stat("nothing/here")).toBeNull();
    await store.put("a.txt", bytesSource("hello"), { maxBytes: 10 });
    expect(await store.delete("a.txt")).toBe(true);
    expect(await store.delete("a.txt")).toBe(false);
    expect(await store.get("a.txt")).toBeNull();
  });

  it("accepts exactly the cap and refuses one byte more with a 413 problem, storing nothing", async () => {
    await expect(store.put("exact.bin", chunks(4, 1024), { maxBytes: 4096 })).resolves.toMatchObject({
      sizeBytes: 4096,
    });
    const refusal = store.put("over.bin", chunks(4, 1024), { maxBytes: 4095 });
    await expect(refusal).rejects.toBeInstanceOf(ProblemError);
    await expect(refusal).rejects.toMatchObject({
      init: { status: 413, code: "artefact_too_large", extensions: { max_bytes: 4095 } },
    });
    expect(await store.get("over.bin")).toBeNull();
    expect(await temporaryFiles()).toEqual([]);
  });

  it("stops reading a source once it passes the cap", async () => {
    let pulled = 0;
    await expect(
      store.put(
        "huge.bin",
        chunks(1000, MiB, () => void pulled++),
        { maxBytes: 2 * MiB },
      ),
    ).rejects.toMatchObject({ init: { status: 413 } });
    expect(pulled).toBeLessThan(10);
  });

  it("replaces an artefact atomically: readers see the old bytes until the new ones are complete", async () => {
    await store.put("report.json", bytesSource("old"), { maxBytes: 100 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reachedGate!: () => void;
    const atGate = new Promise<void>((r) => (reachedGate = r));
    const writing = store.put(
      "report.json",
      chunks(3, 10, async (i) => {
        if (i === 2) {
          reachedGate();
          await gate;
        }
      }),
      { maxBytes: 100 },
    );
    await atGate;
    expect((await readAll((await store.get("report.json"))!)).toString()).toBe("old");
    release();
    await writing;
    expect(await readAll((await store.get("report.json"))!)).toEqual(
      Buffer.concat([Buffer.alloc(10, 0), Buffer.alloc(10, 1), Buffer.alloc(10, 2)]),
    );
  });

  it("keeps the previous artefact when a replacement is refused, fails or is aborted", async () => {
    await store.put("keep.json", bytesSource("first"), { maxBytes: 100 });
    await expect(store.put("keep.json", chunks(2, 100), { maxBytes: 150 })).rejects.toMatchObject({
      init: { status: 413 },
    });
    const failing = new Readable({
      read() {
        this.push("partial");
        this.destroy(new Error("connection reset"));
      },
    });
    await expect(store.put("keep.json", failing, { maxBytes: 100 })).rejects.toThrow("connection reset");
    const abort = new AbortController();
    const aborted = store.put(
      "keep.json",
      chunks(100, 10, (i) => {
        if (i === 3) abort.abort();
      }),
      { maxBytes: 10_000, signal: abort.signal },
    );
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
    expect((await readAll((await store.get("keep.json"))!)).toString()).toBe("first");
    expect(await temporaryFiles()).toEqual([]);
  });

  it("refuses keys that could leave the store or collide with its temporary files", async () => {
    const bad = [
      "",
      "../escape",
      "a/../../escape",
      "/etc/passwd",
      "a//b",
      "a/",
      ".tmp/x",
      ".hidden",
      "a/./b",
      "a\\..\\b",
      "a b",
      "ä",
      "x".repeat(129),
      Array(9).fill("a").join("/"),
      `${"a/".repeat(200)}a`,
    ];
    for (const key of bad) {
      await expect(store.put(key, bytesSource("x"), { maxBytes: 10 })).rejects.toBeInstanceOf(InvalidArtefactKey);
      await expect(store.get(key)).rejects.toBeInstanceOf(InvalidArtefactKey);
      await expect(store.delete(key)).rejects.toBeInstanceOf(InvalidArtefactKey);
    }
    // Refused before anything was touched: not even the store's own directory exists.
    expect(await readdir(base)).toEqual([]);
  });

  it("accepts the keys the services make", async () => {
    for (const key of [
      "uploads/0190f0e0-0000-7000-8000-000000000001/sbom",
      "scans/s1/attempt-2/scancode.json",
      "a..b",
      "-x_y.z",
    ]) {
      await expect(store.put(key, bytesSource("ok"), { maxBytes: 10 })).resolves.toMatchObject({ key, sizeBytes: 2 });
      expect(await readFile(store.pathOf(key), "utf8")).toBe("ok");
    }
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
