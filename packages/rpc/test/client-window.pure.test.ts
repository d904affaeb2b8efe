// A service client's HTTP/2 receive windows: a page larger than HTTP/2's default 64 KiB arrives without the client
// granting more window part by part (each grant a write of its own and a wake-up of the server).
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Health } from "@sca/proto/grpc/health/v1/health_pb.ts";
import { createServiceClient } from "@sca/rpc";

describe("service client windows", () => {
  const server = http2.createServer();
  const sessions: http2.ServerHttp2Session[] = [];
  const windowsSeen: number[] = [];

  beforeAll(async () => {
    server.on("session", (s) => sessions.push(s));
    // Answers every call with a stream error once the client's window is known: only the windows matter here.
    server.on("stream", (stream) => {
      setTimeout(() => {
        windowsSeen.push(stream.session!.state.remoteWindowSize!, stream.session!.remoteSettings.initialWindowSize!);
        stream.respond({ ":status": 503 });
        stream.end();
      }, 50);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    for (const s of sessions) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it("lets a server send a whole page on one session and one stream before any window update", async () => {
    const { port } = server.address() as AddressInfo;
    const client = createServiceClient(Health, `http://127.0.0.1:${port}`);
    await expect(client.check({ service: "" })).rejects.toThrow();
    const [sessionWindow, streamWindow] = windowsSeen;
    expect(sessionWindow).toBeGreaterThanOrEqual(8 << 20);
    expect(streamWindow).toBeGreaterThanOrEqual(1 << 20);
  });
});
