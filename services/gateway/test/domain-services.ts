// Real domain services as child processes (`node src/main.ts`), each on an ephemeral RPC port, for the
// readiness and gRPC interop tests.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { openDatabase } from "@sca/db";
import { freePort, TEST_SECRET, uniqueName } from "@sca/testkit";

// Topics and consumer groups of these processes live under a prefix of the test run's own: a service that consumes
// (admin reads the audit topic) never joins a running portal's group.
const TOPIC_PREFIX = `${uniqueName("svc_proc")}.`;

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function serviceEnv(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    SECRET_KEY: process.env.SECRET_KEY ?? TEST_SECRET,
    LOG_LEVEL: "ERROR",
    KAFKA_TOPIC_PREFIX: TOPIC_PREFIX,
    ...extra,
  };
}

export { freePort };

/** `node src/main.ts migrate` of a service against a database. */
export async function migrateService(name: string, databaseUrl: string): Promise<void> {
  await promisify(execFile)(process.execPath, ["src/main.ts", "migrate"], {
    cwd: `${REPO_ROOT}services/${name}`,
    env: serviceEnv(databaseUrl),
  });
}

export interface RunningService {
  name: string;
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startService(name: string, databaseUrl: string): Promise<RunningService> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["src/main.ts"], {
    cwd: `${REPO_ROOT}services/${name}`,
    env: serviceEnv(databaseUrl, { RPC_PORT: String(port) }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const deadline = Date.now() + 30_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${name} did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** A database of its own (no service schema in it), dropped by the returned function. */
export async function createScratchDatabase(
  databaseUrl: string,
  name: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const orm = await openDatabase({ url: databaseUrl, schema: "public", entities: [], migrations: [] });
  const sql = orm.em.getConnection();
  await sql.execute(`create database "${name}"`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await sql.execute(`drop database if exists "${name}" with (force)`);
      await orm.close();
    },
  };
}
