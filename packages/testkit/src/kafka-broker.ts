// A Kafka broker of a test's own, for the tests that stop and restart Kafka (the shared broker of ./dev test is
// everybody's and is never stopped). It is the single-node KRaft broker scripts/stack/servers.sh runs, from the
// same installed jars (.tools/kafka-<KAFKA_VERSION>) and the same tools/kafka/server.properties, on two free
// loopback ports and a temporary log directory. stop() and start() keep the log directory, so a restart finds its
// topics, offsets and consumer groups as a real restart does; remove() stops it and deletes the directory.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { freePort } from "./free-port.ts";

export interface TestKafkaBroker {
  /** host:port of its PLAINTEXT listener, for KAFKA_BROKERS. */
  brokers: string[];
  /** Stops the broker (SIGTERM: a controlled shutdown) and waits for the process to end. Idempotent. */
  stop(): Promise<void>;
  /** Starts it again over the same log directory and ports, and waits until it takes connections. */
  start(): Promise<void>;
  /** Stops it and deletes its log directory. */
  remove(): Promise<void>;
}

const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

function kafkaVersion(): string {
  const versions = readFileSync(join(ROOT, "scripts/versions.sh"), "utf8");
  const version = /^KAFKA_VERSION=(\S+)$/m.exec(versions)?.[1];
  if (!version) throw new Error("scripts/versions.sh names no KAFKA_VERSION");
  return version;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

/** Starts a broker of the test's own; `startTimeoutMs` bounds each start (a loaded machine is slow to boot the JVM). */
export async function startKafkaBroker(opts: { startTimeoutMs?: number } = {}): Promise<TestKafkaBroker> {
  const startTimeoutMs = opts.startTimeoutMs ?? 90_000;
  const lib = join(ROOT, ".tools", `kafka-${kafkaVersion()}`, "lib");
  const java = [
    "-Xms128m",
    "-Xmx512m",
    // As scripts/stack/servers.sh: the quick compiler and one GC thread, for a broker that lives minutes.
    "-XX:TieredStopAtLevel=1",
    "-XX:+UseSerialGC",
    `-Dlog4j2.configurationFile=${join(ROOT, "tools/kafka/log4j2.yaml")}`,
    "-cp",
    `${lib}/*`,
  ];
  const dir = await mkdtemp(join(tmpdir(), "sca-kafka-"));
  const [port, controllerPort] = [await freePort(), await freePort()];
  const conf = join(dir, "server.properties");
  const template = await readFile(join(ROOT, "tools/kafka/server.properties"), "utf8");
  await writeFile(
    conf,
    template
      .replaceAll("@DATA@", join(dir, "logs"))
      .replaceAll("@PORT@", String(port))
      .replaceAll("@CPORT@", String(controllerPort)),
  );
  // A KRaft cluster id is 16 bytes in URL-safe base64.
  const clusterId = randomBytes(16).toString("base64url");
  const format = spawnSync(
    "java",
    [...java, "kafka.tools.StorageTool", "format", "--standalone", "-t", clusterId, "-c", conf],
    {
      encoding: "utf8",
    },
  );
  if (format.status !== 0) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`formatting the test broker's log directory failed: ${format.stderr || format.stdout}`);
  }

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = "";

  const start = async () => {
    if (child) return;
    output = "";
    const proc = spawn("java", [...java, "kafka.Kafka", conf], { stdio: ["ignore", "pipe", "pipe"] });
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
    proc.stdout.on("data", keep);
    proc.stderr.on("data", keep);
    child = proc;
    exited = new Promise((done) => proc.once("exit", () => done()));
    const deadline = Date.now() + startTimeoutMs;
    while (!(await accepts(port))) {
      if (proc.exitCode !== null) {
        child = undefined;
        throw new Error(`the test broker exited (${proc.exitCode}): ${output}`);
      }
      if (Date.now() > deadline) throw new Error(`the test broker did not open port ${port}: ${output}`);
      await delay(200);
    }
  };

  const stop = async () => {
    const proc = child;
    if (!proc) return;
    child = undefined;
    proc.kill("SIGTERM");
    // A controlled shutdown takes seconds; one that hangs is ended.
    const killer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
    await exited;
    clearTimeout(killer);
  };

  await start();
  return {
    brokers: [`127.0.0.1:${port}`],
    start,
    stop,
    async remove() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
