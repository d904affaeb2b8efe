// The buffers the patched protobuf-es writer and Connect's body reader allocate are not zeroed (patches/, issue 24):
// what they answer must still be exactly the bytes written, whatever the allocator left in that memory.
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { readAllBytes } from "@connectrpc/connect/protocol";
import { describe, expect, it } from "@jest/globals";
import {
  ListVulnerabilityFindingsResponseSchema,
  VulnerabilityFindingSchema,
} from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";

/** Memory malloc hands out again: large buffers filled with 0xff and dropped. */
function dirtyTheHeap(): void {
  for (let i = 0; i < 32; i++) Buffer.allocUnsafeSlow((64 << 10) << (i % 4)).fill(0xff);
}

/** `bytes` in parts that arrive one at a time, as a socket's do. */
async function* chunksOf(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) {
    await new Promise((resolve) => setImmediate(resolve));
    yield bytes.subarray(at, at + size);
  }
}

describe("wire buffers", () => {
  it("encode a message with doubles and fields past the writer's first growths exactly", () => {
    const finding = (i: number) =>
      create(VulnerabilityFindingSchema, {
        id: `f-${i}`,
        summary: "x".repeat(200 + (i % 7)),
        cvssScore: 9.8 - i / 100,
        epssScore: i / 1000,
        epssPercentile: 0.5,
        aliases: [`CVE-2026-${i}`],
      });
    dirtyTheHeap();
    const page = create(ListVulnerabilityFindingsResponseSchema, {
      items: Array.from({ length: 600 }, (_, i) => finding(i)),
      total: 600,
      itemsJson: new Uint8Array(70_000).fill(0x20),
    });
    const bytes = toBinary(ListVulnerabilityFindingsResponseSchema, page);
    const back = fromBinary(ListVulnerabilityFindingsResponseSchema, bytes);
    expect(back.items[599]!.cvssScore).toBeCloseTo(9.8 - 5.99, 10);
    expect(back.items[123]!.epssScore).toBeCloseTo(0.123, 10);
    expect(back.itemsJson.every((b) => b === 0x20)).toBe(true);
    expect(back).toEqual(page);
  });

  it("answers from finish() bytes that later writes on the same writer leave alone", () => {
    const writer = new BinaryWriter();
    const first = writer.raw(new Uint8Array(50_000).fill(1)).double(1.5).finish();
    writer.raw(new Uint8Array(50_000).fill(2)).double(2.5);
    const second = writer.finish();
    expect(first.subarray(0, 50_000).every((b) => b === 1)).toBe(true);
    expect(new DataView(first.buffer, first.byteOffset).getFloat64(50_000, true)).toBe(1.5);
    expect(second.subarray(0, 50_000).every((b) => b === 2)).toBe(true);
  });

  it("keeps a large write's bytes when many small writes follow it past the room left after it", () => {
    const writer = new BinaryWriter().raw(new Uint8Array(100_000).fill(3));
    for (let i = 0; i < 5_000; i++) writer.uint32(i % 128);
    const bytes = writer.finish();
    expect(bytes.length).toBe(105_000);
    expect(bytes.subarray(0, 100_000).every((b) => b === 3)).toBe(true);
    expect([...bytes.subarray(100_000, 100_130)]).toEqual(Array.from({ length: 130 }, (_, i) => i % 128));
  });

  it("reads a body exactly, with and without its length", async () => {
    const body = Uint8Array.from({ length: 200_000 }, (_, i) => i % 251);
    dirtyTheHeap();
    expect(await readAllBytes(chunksOf(body, 16_384), 1 << 20, String(body.length))).toEqual(body);
    dirtyTheHeap();
    expect(await readAllBytes(chunksOf(body, 16_384), 1 << 20)).toEqual(body);
    await expect(readAllBytes(chunksOf(body, 16_384), 1 << 20, "300000")).rejects.toThrow(/promised 300000 bytes/);
  });
});
