// A whole portal of its own as production runs it: every service and the gateway as processes (`node src/main.ts`)
// on free ports, a fresh database, its own topic prefix and artefact directory, so a running ./dev up is never
// touched. The fuzzing gate drives it with schemathesis; the portal benchmarks read each process's memory by its pid.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { freePort } from "./free-port.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serviceAddressKey } from "@sca/config";
import { openDatabase } from "@sca/db";
import { SERVICES, type ServiceName } from "@sca/runtime/services";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const ADMIN_URL =
  process.env.PORTAL_ADMIN_DATABASE_URL ?? `postgresql://sca:sca@127.0.0.1:${process.env.PG_PORT ?? "55432"}/sca`;

async function execute(sql: string): Promise<void> {
  const orm = await openDatabase({ url: ADMIN_URL, schema: "public", entities: [], migrations: [], poolMax: 1 });
  try {
    await orm.em.getConnection().execute(sql);
  } finally {
    await orm.close();
  }
}

/**
 * jemalloc preloaded as malloc, with the images' settings (deploy/docker/Dockerfile, docs/scanner-runner.md "Memory"),
 * from Debian's libjemalloc2 (./dev setup installs it).
 */
function jemallocEnv(): Record<string, string> {
  const triplet = readdirSync("/usr/lib").find((d) => existsSync(join("/usr/lib", d, "libjemalloc.so.2")));
  if (!triplet) throw new Error("libjemalloc.so.2 is not installed: run ./dev setup");
  return {
    LD_PRELOAD: join("/usr/lib", triplet, "libjemalloc.so.2"),
    MALLOC_CONF: "background_thread:true,dirty_decay_ms:3000,muzzy_decay_ms:0",
  };
}

/** A database of the caller's own on the local PostgreSQL, created fresh and dropped by drop(). */
export async function createDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  await execute(`create database ${name} owner sca`);
  // As sca_test (scripts/stack/servers.sh): a test's commits need not wait for the WAL flush.
  await execute(`alter database ${name} set synchronous_commit = off`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => dropDatabase(name) };
}

/**
 * FORCE ends the sessions of the portal's roles, but refuses when an autovacuum worker (the bootstrap superuser's)
 * is in the database, as after a large scan; a plain DROP cancels autovacuum itself, so it is tried then, a few times
 * while the refused FORCE has left the other sessions.
 */
async function dropDatabase(name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await execute(`drop database if exists ${name} with (force)`);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== "42501" || attempt === 10) throw err;
    }
    try {
      await execute(`drop database if exists ${name}`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export interface PortalProcesses {
  /** http://127.0.0.1:<port> of the gateway (the API under /api). */
  origin: string;
  /** The environment every process got. */
  env: Record<string, string>;
  /** Each process's log and the artefact directory. */
  logDir: string;
  /** The pid of each service's and the gateway's node process. */
  pids: Record<ServiceName | "gateway", number>;
  /** Signs in a super_admin made by identity's bootstrap command (with these credentials, else made-up ones). */
  superAdmin(credentials?: { email: string; password: string }): Promise<string>;
  /** The CPU seconds each process used so far, with the children it waited for (a scan's tools): where a run's went. */
  cpuSeconds(): Record<ServiceName | "gateway", number>;
  stop(): Promise<void>;
}

export interface PortalProcessOptions {
  databaseUrl: string;
  /** Added to (or replacing) the defaults below, for every process. */
  env?: Record<string, string>;
  /** Added for one process only (its V8 flags, say). */
  envOf?: Partial<Record<ServiceName | "gateway", Record<string, string>>>;
  /** The prefix of the log directory under the temporary directory. */
  label?: string;
  /**
   * Node's heap and malloc as the images set them (`--max-semi-space-size=8`: half V8's default; jemalloc as malloc),
   * for benchmarks that read the processes' memory. Off for tests: the default young generation costs the fuzzing
   * gate's portal about a tenth less CPU (docs/testing.md).
   */
  productionHeap?: boolean;
}

export async function startPortalProcesses(opts: PortalProcessOptions): Promise<PortalProcesses> {
  const logDir = mkdtempSync(join(tmpdir(), `sca-${opts.label ?? "portal"}-`));
  const names = Object.keys(SERVICES) as ServiceName[];
  const ports = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await freePort()] as const)));
  const httpPort = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    APP_ENV: "dev",
    LOG_LEVEL: "WARNING",
    // Never the Internet: no package-registry lookups for the components' licenses or currency.
    CURRENCY_ENABLED: "false",
    LICENSE_FETCH_ENABLED: "false",
    // Nor the public source host: a port claimed free on loopback, which refuses at once (a test that opens a pull
    // request starts a host of its own and sets this).
    SCM_API_URL: `http://127.0.0.1:${await freePort()}`,
    DATABASE_URL: opts.databaseUrl,
    REDIS_URL: process.env.PORTAL_REDIS_URL ?? "redis://127.0.0.1:56379/2",
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? "127.0.0.1:59092",
    KAFKA_TOPIC_PREFIX: `${opts.label ?? "portal"}${randomBytes(4).toString("hex")}.`,
    SECRET_KEY: randomBytes(36).toString("base64url"),
    ARTEFACT_DIR: join(logDir, "artefacts"),
    HTTP_PORT: String(httpPort),
    CORS_ALLOWED_ORIGINS: `http://127.0.0.1:${httpPort}`,
    // As scripts/stack/portal.sh and the images start them.
    ...(opts.productionHeap === false ? {} : { NODE_OPTIONS: "--max-semi-space-size=8", ...jemallocEnv() }),
    PASSWORD_RESET_BASE_URL: `http://127.0.0.1:${httpPort}/reset-password`,
    ...opts.env,
  };
  for (const n of names) env[serviceAddressKey(n)] = `http://127.0.0.1:${ports[n]}`;

  const children: ChildProcess[] = [];
  const run = (name: ServiceName | "gateway", extra: Record<string, string>) => {
    const child = spawn(process.execPath, ["src/main.ts"], {
      cwd: join(ROOT, "services", name),
      env: { ...env, ...extra, ...opts.envOf?.[name] },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const log = createWriteStream(join(logDir, `${name}.log`), { flags: "a" });
    // Two streams into one file: it ends once both have closed (the first one's end ending it made the other's last
    // lines, a failing start's error among them, a write after end that threw in the caller).
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.once("close", () => log.end());
    children.push(child);
    return child.pid!;
  };
  for (const n of names) {
    const migrate = spawnSync(process.execPath, ["src/main.ts", "migrate"], {
      cwd: join(ROOT, "services", n),
      env,
      encoding: "utf8",
    });
    if (migrate.status !== 0) throw new Error(`migrating ${n} failed:\n${migrate.stdout}${migrate.stderr}`);
  }
  const pids = {} as Record<ServiceName | "gateway", number>;
  for (const n of names) pids[n] = run(n, { RPC_PORT: String(ports[n]) });
  pids.gateway = run("gateway", {});
  const origin = `http://127.0.0.1:${httpPort}`;
  const stop = async () => {
    for (const c of children) c.kill("SIGTERM");
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null) return resolve();
            const force = setTimeout(() => c.kill("SIGKILL"), 15_000);
            c.once("exit", () => {
              clearTimeout(force);
              resolve();
            });
          }),
      ),
    );
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    // Every service up: the gateway alone is ready once identity is, the others listed as degraded meanwhile.
    const ready = await fetch(`${origin}/api/health/ready`).then(
      async (r) => r.ok && ((await r.json()) as { degraded: string[] }).degraded.length === 0,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline || children.some((c) => c.exitCode !== null)) {
      await stop();
      throw new Error(`the portal did not become ready; logs in ${logDir}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  const superAdmin = async (credentials?: { email: string; password: string }) => {
    const { email, password } = credentials ?? {
      email: `admin-${randomBytes(3).toString("hex")}@portal.example.com`,
      password: `Pp-${randomBytes(12).toString("base64url")}`,
    };
    const boot = spawnSync(process.execPath, ["src/commands/bootstrap-admin.ts"], {
      cwd: join(ROOT, "services", "identity"),
      env: { ...env, ADMIN_EMAIL: email, ADMIN_PASSWORD: password },
      encoding: "utf8",
    });
    if (boot.status !== 0) throw new Error(`bootstrap-admin failed:\n${boot.stdout}${boot.stderr}`);
    const login = () =>
      fetch(`${origin}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
    // The readiness poll's kept-alive connection may be closed by the gateway (idle past its keep-alive timeout while
    // the bootstrap ran) just as the sign-in leaves on it: asked again once.
    const res = await login().catch((err: unknown) => {
      if ((err as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw err;
      return login();
    });
    if (!res.ok) throw new Error(`login: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const cpuSeconds = () =>
    Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => {
        try {
          // utime, stime, cutime, cstime: fields 14-17 of /proc/<pid>/stat, in clock ticks (1/100 s).
          const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
          return [name, (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100];
        } catch {
          return [name, 0];
        }
      }),
    ) as Record<ServiceName | "gateway", number>;
  return { origin, env, logDir, pids, superAdmin, cpuSeconds, stop };
}
