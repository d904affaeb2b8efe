// What one service-to-service call costs in CPU, client and server, at the component list's rate (BENCH_RATE, default
// 200 calls/s, evenly spaced, for BENCH_SECONDS, default 10, after a 3 s warm-up). The server is ours (startRpcServer:
// the Connect adapter over cleartext HTTP/2 with every service's interceptors) in a child process; each call is
// grpc.health.v1 Check carrying a caller token, as a request relayed by the gateway does. Clients:
// - `@sca/rpc` createServiceClient: what every service uses (the Connect protocol over HTTP/2, binary);
// - the gRPC protocol over HTTP/2 through connect-node (what createServiceClient used before 27 November 2026);
// - @grpc/grpc-js against the same server;
// - node:http2 alone posting the Connect protocol's unary request: the floor of a call over HTTP/2 in Node.
// No portal needed: `node bench/rpc-hop.ts`.
import { fork } from "node:child_process";
import http2 from "node:http2";
import { readFileSync } from "node:fs";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { createClient, createContextValues, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { createLogger } from "@sca/log";
import { Health, HealthCheckRequestSchema, HealthCheckResponseSchema } from "@sca/proto/grpc/health/v1/health_pb.ts";
import {
  ANONYMOUS,
  CALLER_HEADER,
  callerTokenKey,
  createServiceClient,
  HealthRegistry,
  signCallerToken,
  startRpcServer,
} from "@sca/rpc";
import { printTable } from "./table.ts";

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SECRET = "rpc-hop-bench-secret-of-at-least-32-characters";

if (process.argv[2] === "server") {
  const server = await startRpcServer({
    service: "bench",
    port: 0,
    logger: createLogger("bench", "ERROR"),
    secretKey: SECRET,
    health: new HealthRegistry(),
    readMaxBytes: 1024 ** 2,
    routes: () => undefined,
  });
  process.send!(server.port);
} else {
  const cpuMsOf = (pid: number) => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const token = await signCallerToken({ ...ANONYMOUS, kind: "service", service: "gateway" }, SECRET);
  const request = create(HealthCheckRequestSchema, { service: "" });
  const asCaller = { contextValues: createContextValues().set(callerTokenKey, token) };
  const viaConnect = (client: Client<typeof Health>) => () => client.check(request, asCaller);

  const clients: Record<string, (url: string) => () => Promise<unknown>> = {
    "@sca/rpc createServiceClient (Connect protocol, HTTP/2)": (url) => viaConnect(createServiceClient(Health, url)),
    "gRPC protocol, HTTP/2 (connect-node)": (url) =>
      viaConnect(
        createClient(
          Health,
          createGrpcTransport({
            baseUrl: url,
            acceptCompression: [],
            interceptors: [(next) => (req) => (req.header.set(CALLER_HEADER, token), next(req))],
          }),
        ),
      ),
    "@grpc/grpc-js": (url) => {
      const definition = {
        check: {
          path: "/grpc.health.v1.Health/Check",
          requestStream: false,
          responseStream: false,
          requestSerialize: (m: typeof request) => Buffer.from(toBinary(HealthCheckRequestSchema, m)),
          requestDeserialize: (b: Buffer) => fromBinary(HealthCheckRequestSchema, b),
          responseSerialize: (m: unknown) => Buffer.from(m as Uint8Array),
          responseDeserialize: (b: Buffer) => fromBinary(HealthCheckResponseSchema, b),
        },
      };
      const Ctor = grpc.makeGenericClientConstructor(definition, "Health");
      const client = new Ctor(url.replace("http://", ""), grpc.credentials.createInsecure()) as unknown as {
        check(r: unknown, m: grpc.Metadata, cb: (err: Error | null) => void): void;
      };
      return () =>
        new Promise<void>((resolve, reject) => {
          const metadata = new grpc.Metadata();
          metadata.set(CALLER_HEADER, token);
          client.check(request, metadata, (err) => (err ? reject(err) : resolve()));
        });
    },
    "node:http2 alone (the floor)": (url) => {
      const session = http2.connect(url);
      const body = toBinary(HealthCheckRequestSchema, request);
      return () =>
        new Promise<void>((resolve, reject) => {
          const stream = session.request({
            ":method": "POST",
            ":path": "/grpc.health.v1.Health/Check",
            "content-type": "application/proto",
            "connect-protocol-version": "1",
            [CALLER_HEADER]: token,
          });
          stream.on("response", (headers) => {
            if (headers[":status"] !== 200) reject(new Error(`status ${headers[":status"]}`));
          });
          stream.on("data", () => undefined);
          stream.on("end", () => resolve());
          stream.on("error", reject);
          stream.end(body);
        });
    },
  };

  /** Calls at RATE for `seconds`, each due at its own time whatever the answers before it did. */
  async function paced(call: () => Promise<unknown>, seconds: number): Promise<number> {
    const total = Math.round(RATE * seconds);
    const start = performance.now();
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const wait = start + (i * 1000) / RATE - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      calls.push(call());
    }
    await Promise.all(calls);
    return total;
  }

  const rows: Record<string, string | number>[] = [];
  for (const [name, make] of Object.entries(clients)) {
    const server = fork(new URL(import.meta.url).pathname, ["server"], { execArgv: process.execArgv });
    const port = await new Promise<number>((resolve) => server.once("message", (m) => resolve(m as number)));
    const call = make(`http://127.0.0.1:${port}`);
    await paced(call, 3);
    const serverBefore = cpuMsOf(server.pid!);
    const clientBefore = process.cpuUsage();
    const calls = await paced(call, SECONDS);
    const client = process.cpuUsage(clientBefore);
    rows.push({
      client: name,
      "client CPU ms/call": (client.user + client.system) / 1000 / calls,
      "server CPU ms/call": (cpuMsOf(server.pid!) - serverBefore) / calls,
    });
    server.kill();
  }
  printTable(`One unary call (health Check with a caller token) at ${RATE} calls/s, ${SECONDS} s`, rows);
  process.exit(0);
}
