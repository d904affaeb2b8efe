// A local S3-compatible server for a test of its own: moto's server mode, installed by scripts/setup/s3.sh under
// .tools/moto-<MOTO_VERSION> (docs/scans.md says why moto). It listens on a free loopback port and keeps everything in
// memory: stop() ends it and its buckets with it. Credentials are any non-empty pair.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { join, resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";

export interface TestS3Server {
  /** http://127.0.0.1:<port>, for ARTEFACT_S3_ENDPOINT (path-style). */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Creates a bucket (moto takes unsigned requests, so this needs no S3 client). */
  createBucket(name: string): Promise<void>;
  /** The keys of the bucket's objects, sorted. */
  keysOf(bucket: string): Promise<string[]>;
  stop(): Promise<void>;
}

const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

function motoServer(): string {
  const version = /^MOTO_VERSION=(\S+)$/m.exec(readFileSync(join(ROOT, "scripts/versions.sh"), "utf8"))?.[1];
  const bin = join(ROOT, ".tools", `moto-${version}`, "bin", "moto_server");
  if (!version || !existsSync(bin)) throw new Error(`no local S3 server at ${bin}: run bash scripts/setup/s3.sh`);
  return bin;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

const accepts = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });

export async function startS3Server(opts: { startTimeoutMs?: number } = {}): Promise<TestS3Server> {
  const port = await freePort();
  let output = "";
  const proc = spawn(motoServer(), ["-H", "127.0.0.1", "-p", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  proc.stdout.on("data", keep);
  proc.stderr.on("data", keep);
  const exited = new Promise<void>((done) => proc.once("exit", () => done()));
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  while (!(await accepts(port))) {
    if (proc.exitCode !== null) throw new Error(`the S3 server exited (${proc.exitCode}): ${output}`);
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`the S3 server did not open port ${port}: ${output}`);
    }
    await delay(100);
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    region: "us-east-1",
    accessKeyId: "sca-test",
    secretAccessKey: "sca-test-secret",
    async createBucket(name) {
      const res = await fetch(`http://127.0.0.1:${port}/${name}`, { method: "PUT" });
      if (!res.ok) throw new Error(`creating bucket ${name}: ${res.status} ${await res.text()}`);
    },
    async keysOf(bucket) {
      const res = await fetch(`http://127.0.0.1:${port}/${bucket}?list-type=2`);
      if (!res.ok) throw new Error(`listing bucket ${bucket}: ${res.status} ${await res.text()}`);
      return [...(await res.text()).matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!).sort();
    },
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      await exited;
    },
  };
}
