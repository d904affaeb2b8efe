// A whole portal for a test stage of ./dev test (the fuzzing gate, the UI suite): every service and the gateway as
// processes, on free ports, over the database given, with their own Redis index, topic prefix and artefact
// directory, so a running ./dev up is never touched. `overrides` replaces or adds keys of their environment.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serviceAddressKey } from "@sca/config";
import { SERVICES, type ServiceName } from "@sca/runtime/services";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

export interface Portal {
  origin: string;
  env: Record<string, string>;
  logDir: string;
  stop(): Promise<void>;
}

export async function startPortal(databaseUrl: string, overrides: Record<string, string> = {}): Promise<Portal> {
  const logDir = mkdtempSync(join(tmpdir(), "sca-portal-"));
  const names = Object.keys(SERVICES) as ServiceName[];
  const ports = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await freePort()] as const)));
  const httpPort = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    APP_ENV: "dev",
    LOG_LEVEL: "WARNING",
    // A test never reaches the Internet: no package-registry lookups for the components' currency.
    CURRENCY_ENABLED: "false",
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.FUZZ_REDIS_URL ?? "redis://127.0.0.1:56379/2",
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? "127.0.0.1:59092",
    KAFKA_TOPIC_PREFIX: `fuzz${randomBytes(4).toString("hex")}.`,
    SECRET_KEY: randomBytes(36).toString("base64url"),
    ARTEFACT_DIR: join(logDir, "artefacts"),
    HTTP_PORT: String(httpPort),
    CORS_ALLOWED_ORIGINS: `http://127.0.0.1:${httpPort}`,
    NODE_OPTIONS: "--max-semi-space-size=1",
    // The per-address limits the spec lets an operator set are raised for this run only (the login limit is fixed
    // by the spec: its 429 is a documented answer), and the failed-sign-in throttle is off, so the gate fuzzes the
    // authentication routes instead of skipping them.
    REGISTRATION_RATE_LIMIT: "100000/minute",
    PASSWORD_RESET_RATE_LIMIT: "100000/minute",
    PASSWORD_RESET_CONFIRM_RATE_LIMIT: "100000/minute",
    REFRESH_RATE_LIMIT: "100000/minute",
    OAUTH_AUTHORIZE_RATE_LIMIT: "100000/minute",
    LOGIN_THROTTLE_ENABLED: "false",
    PASSWORD_RESET_BASE_URL: `http://127.0.0.1:${httpPort}/reset-password`,
    // A fuzzed team chat webhook may only name this machine: the notifier never posts anywhere else.
    TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
  };
  for (const n of names) env[serviceAddressKey(n)] = `http://127.0.0.1:${ports[n]}`;
  Object.assign(env, overrides);

  const children: ChildProcess[] = [];
  const run = (name: string, args: string[], extra: Record<string, string> = {}) => {
    const child = spawn(process.execPath, ["src/main.ts", ...args], {
      cwd: join(ROOT, "services", name),
      env: { ...env, ...extra },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const log = createWriteStream(join(logDir, `${name}.log`), { flags: "a" });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    return child;
  };
  for (const n of names) {
    const migrate = spawnSync(process.execPath, ["src/main.ts", "migrate"], {
      cwd: join(ROOT, "services", n),
      env,
      encoding: "utf8",
    });
    if (migrate.status !== 0) throw new Error(`migrating ${n} failed:\n${migrate.stdout}${migrate.stderr}`);
  }
  for (const n of names) children.push(run(n, [], { RPC_PORT: String(ports[n]) }));
  children.push(run("gateway", []));
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
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ready = await fetch(`${origin}/api/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline || children.some((c) => c.exitCode !== null)) {
      await stop();
      throw new Error(`the portal did not become ready; logs in ${logDir}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { origin, env, logDir, stop };
}

/** Makes the portal's first super_admin, as ./dev up does. */
export function bootstrapAdmin(portal: Portal, email: string, password: string): void {
  const boot = spawnSync(process.execPath, ["src/commands/bootstrap-admin.ts"], {
    cwd: join(ROOT, "services", "identity"),
    env: { ...portal.env, ADMIN_EMAIL: email, ADMIN_PASSWORD: password },
    encoding: "utf8",
  });
  if (boot.status !== 0) throw new Error(`bootstrap-admin failed:\n${boot.stdout}${boot.stderr}`);
}
