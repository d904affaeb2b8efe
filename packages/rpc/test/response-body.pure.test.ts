// A service client reads an answer that arrives in many parts whole and exactly (Connect's unary body read, patched to
// read the parts straight into one buffer: patches/@connectrpc__connect@2.2.0.patch), errors included.
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { InventoryService, ListComponentsResponseSchema } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { createServiceClient } from "@sca/rpc";

const rows = JSON.stringify(Array.from({ length: 2_000 }, (_, i) => ({ name: `package-${i}`, version: `1.${i}.0` })));
const page = create(ListComponentsResponseSchema, {
  itemsJson: new TextEncoder().encode(rows),
  total: 2_000,
  limit: 2_000,
  offset: 0,
  scanId: "0193b0c2-6f1e-7b5c-9a3e-2f4d5c6b7a80",
});

/** Writes `body` in parts of `size` bytes, one per turn of the event loop, as a slow socket would deliver them. */
async function writeInParts(stream: http2.ServerHttp2Stream, body: Uint8Array, size: number): Promise<void> {
  for (let at = 0; at < body.length; at += size) {
    stream.write(body.subarray(at, at + size));
    await new Promise((resolve) => setImmediate(resolve));
  }
  stream.end();
}

describe("a service client's answer in many parts", () => {
  const server = http2.createServer();
  const sessions: http2.ServerHttp2Session[] = [];
  let answer: "page" | "page at once" | "error" | "reset" | "short" = "page";

  beforeAll(async () => {
    server.on("session", (s) => sessions.push(s));
    server.on("stream", (stream) => {
      stream.resume(); // the request's body is not needed
      stream.on("error", () => undefined); // a reset stream's writes fail; only the client's side is tested
      const body = toBinary(ListComponentsResponseSchema, page);
      if (answer === "page") {
        // With its length promised, as Connect's servers send it (read into a buffer of that length as it comes).
        stream.respond({ ":status": 200, "content-type": "application/proto", "content-length": body.length });
        void writeInParts(stream, body, 1_000);
      } else if (answer === "page at once") {
        // Many small DATA frames in one go, no length promised (the parts joined at the end).
        stream.respond({ ":status": 200, "content-type": "application/proto" });
        for (let at = 0; at < body.length; at += 300) stream.write(body.subarray(at, at + 300));
        stream.end();
      } else if (answer === "short") {
        // A length promised and not kept.
        stream.respond({ ":status": 200, "content-type": "application/proto", "content-length": body.length + 10 });
        void writeInParts(stream, body, 1_000);
      } else if (answer === "reset") {
        stream.respond({ ":status": 200, "content-type": "application/proto" });
        stream.write(body.subarray(0, 5_000), () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
      } else {
        stream.respond({ ":status": 404, "content-type": "application/json" });
        const error = { code: "not_found", message: `no such project ${"x".repeat(3_000)}` };
        void writeInParts(stream, new TextEncoder().encode(JSON.stringify(error)), 100);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    for (const s of sessions) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const client = () =>
    createServiceClient(InventoryService, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);

  it("is read whole, every byte as sent", async () => {
    answer = "page";
    const got = await client().listComponents({ projectId: "p" });
    expect(got.total).toBe(2_000);
    expect(got.scanId).toBe(page.scanId);
    expect(Buffer.from(got.itemsJson).toString("utf8")).toBe(rows);
  });

  it("is read whole when its parts come faster than they are read", async () => {
    answer = "page at once";
    const got = await client().listComponents({ projectId: "p" });
    expect(Buffer.from(got.itemsJson).toString("utf8")).toBe(rows);
  });

  it("fails, rather than waits, when the stream is reset before its end", async () => {
    answer = "reset";
    await expect(client().listComponents({ projectId: "p" })).rejects.toThrow(/internal/i);
  });

  it("fails when it is shorter than its promised length", async () => {
    answer = "short";
    await expect(client().listComponents({ projectId: "p" })).rejects.toThrow(/promised|protocol|internal/i);
  });

  it("is read whole when it is an error", async () => {
    answer = "error";
    await expect(client().listComponents({ projectId: "p" })).rejects.toThrow(
      /^\[not_found\] no such project x{3000}$/,
    );
  });
});
