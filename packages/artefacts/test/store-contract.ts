// The contract every artefact store keeps (ArtefactStore in src/store.ts), run by each backend's test against its
// real storage: a directory (directory-store.test.ts) and an S3 server (s3-store.test.ts). Streams in and out, size
// and SHA-256, the cap (413, nothing stored), atomic replacement, abort and source failure, key rules, delete.
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { beforeEach, describe, expect, it } from "@jest/globals";
import { ProblemError } from "@sca/problem";
import { artefactBytes, bytesSource, InvalidArtefactKey, type ArtefactStore } from "@sca/artefacts";

export interface ContractBackend {
  /** A fresh, empty store for each test. */
  store(): Promise<ArtefactStore> | ArtefactStore;
  /** Nothing of a refused, failed or aborted write is left behind (temporary files, multipart uploads). */
  expectNoLeftovers(): Promise<void>;
  /** Refused keys touched nothing at all. */
  expectUntouched(): Promise<void>;
}

export const MiB = 1024 * 1024;

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** `count` chunks of `size` bytes (a pattern that changes per chunk), made one at a time as the store pulls them. */
export async function* chunks(
  count: number,
  size: number,
  onChunk?: (index: number) => Promise<void> | void,
): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < count; i++) {
    await onChunk?.(i);
    yield Buffer.alloc(size, i % 251);
  }
}

export function sha256Of(count: number, size: number): string {
  const hash = createHash("sha256");
  for (let i = 0; i < count; i++) hash.update(Buffer.alloc(size, i % 251));
  return hash.digest("hex");
}

export function describeArtefactStoreContract(name: string, backend: ContractBackend): void {
  describe(`${name}: the artefact store contract`, () => {
    let store: ArtefactStore;
    beforeEach(async () => {
      store = await backend.store();
    });

    it("stores and streams back an artefact, with its size and SHA-256", async () => {
      const stored = await store.put("uploads/p1/sbom-1.json", chunks(5, MiB), { maxBytes: 10 * MiB });
      expect(stored).toEqual({ key: "uploads/p1/sbom-1.json", sizeBytes: 5 * MiB, sha256: sha256Of(5, MiB) });
      const back = await store.get("uploads/p1/sbom-1.json");
      expect(back).not.toBeNull();
      const bytes = await readAll(back!);
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(stored.sha256);
      expect(await store.stat("uploads/p1/sbom-1.json")).toMatchObject({ sizeBytes: 5 * MiB });
      await backend.expectNoLeftovers();
    });

    it("answers null for an absent key and deletes idempotently", async () => {
      expect(await store.get("nothing/here")).toBeNull();
      expect(await store.stat("nothing/here")).toBeNull();
      await store.put("a.txt", bytesSource("hello"), { maxBytes: 10 });
      expect(await store.delete("a.txt")).toBe(true);
      expect(await store.delete("a.txt")).toBe(false);
      expect(await store.get("a.txt")).toBeNull();
    });

    it("reads an artefact whole, or null when it is absent or past the reader's bound", async () => {
      await store.put("small/package.json", chunks(3, 1000), { maxBytes: MiB });
      const whole = await artefactBytes(store, "small/package.json");
      expect(whole?.length).toBe(3000);
      expect(createHash("sha256").update(whole!).digest("hex")).toBe(sha256Of(3, 1000));
      expect((await artefactBytes(store, "small/package.json", 3000))?.length).toBe(3000);
      expect(await artefactBytes(store, "small/package.json", 2999)).toBeNull();
      expect(await artefactBytes(store, "small/absent.json")).toBeNull();
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
      await backend.expectNoLeftovers();
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
      await backend.expectNoLeftovers();
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
      await backend.expectUntouched();
    });

    it("accepts the keys the services make", async () => {
      for (const key of [
        "uploads/0190f0e0-0000-7000-8000-000000000001/sbom",
        "scans/s1/attempt-2/scancode.json",
        "a..b",
        "-x_y.z",
      ]) {
        await expect(store.put(key, bytesSource("ok"), { maxBytes: 10 })).resolves.toMatchObject({ key, sizeBytes: 2 });
        expect((await readAll((await store.get(key))!)).toString()).toBe("ok");
      }
    });

    it("lists every artefact with its size, or those under a prefix, never a write in progress", async () => {
      await store.put("uploads/p1/a", bytesSource("aa"), { maxBytes: MiB });
      await store.put("uploads/p2/b", bytesSource("bbb"), { maxBytes: MiB });
      await store.put("scans/s1/sbom.json", bytesSource("c"), { maxBytes: MiB });
      const all = async (prefix?: string) => {
        const found: { key: string; sizeBytes: number }[] = [];
        for await (const listed of store.list(prefix)) found.push(listed);
        return found.sort((x, y) => x.key.localeCompare(y.key));
      };
      expect(await all()).toEqual([
        { key: "scans/s1/sbom.json", sizeBytes: 1 },
        { key: "uploads/p1/a", sizeBytes: 2 },
        { key: "uploads/p2/b", sizeBytes: 3 },
      ]);
      expect((await all("uploads")).map((a) => a.key)).toEqual(["uploads/p1/a", "uploads/p2/b"]);
      expect(await all("nothing-here")).toEqual([]);
    });
  });
}
