// The UI suite of ./dev test: builds the app, starts a portal of its own (the test kit's startPortalProcesses: fresh
// database, own Redis
// index and topic prefix) with the frontend's server in front of it, as ./dev up serves them (the gateway behind one
// proxy hop), makes the people the specs act as (a super_admin, a team's developer and viewer, and a developer of
// another team), then runs Playwright on Debian's chromium (e2e/playwright.config.ts). Exits with Playwright's code.
import { spawn, spawnSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDatabase, freePort, startPortalProcesses, type PortalProcesses } from "@sca/testkit";
import { startFrontend, type FrontendInstance } from "../src/service.ts";
import type { People, Person } from "./people.ts";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const FRONTEND = join(HERE, "..");

async function call(origin: string, method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(`${origin}/api${path}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
}

function password(): string {
  return `Ui-${randomBytes(12).toString("base64url")}`;
}

async function person(origin: string, label: string): Promise<Person & { id: string }> {
  const email = `${label}-${randomBytes(4).toString("hex")}@ui.example.com`;
  const secret = password();
  const user = await call(origin, "POST", "/v1/auth/register", { email, password: secret, full_name: label });
  return { id: user.id as string, email, password: secret };
}

async function people(portal: PortalProcesses): Promise<People> {
  const admin = { email: "admin@ui.example.com", password: password() };
  const token = await portal.superAdmin(admin);
  const tag = randomBytes(3).toString("hex");
  const team = await call(portal.origin, "POST", "/v1/admin/teams", { name: `Web ${tag}`, slug: `web-${tag}` }, token);
  const other = await call(
    portal.origin,
    "POST",
    "/v1/admin/teams",
    { name: `Other ${tag}`, slug: `other-${tag}` },
    token,
  );
  const developer = await person(portal.origin, "developer");
  const viewer = await person(portal.origin, "viewer");
  const outsider = await person(portal.origin, "outsider");
  const join = (teamId: unknown, userId: string, role: string) =>
    call(portal.origin, "POST", `/v1/admin/teams/${String(teamId)}/members`, { user_id: userId, role }, token);
  await join(team.id, developer.id, "developer");
  await join(team.id, viewer.id, "viewer");
  await join(other.id, outsider.id, "developer");
  return {
    admin: { ...admin, token },
    teamId: team.id as string,
    teamName: team.name as string,
    developer,
    viewer,
    outsider,
  };
}

async function main(): Promise<number> {
  const build = spawnSync(join(FRONTEND, "node_modules/.bin/vite"), ["build", "--logLevel", "warn"], {
    cwd: FRONTEND,
    stdio: "inherit",
  });
  if (build.status !== 0) return build.status ?? 1;
  // The portal is new, and so is its Redis index: a previous run's rate-limit buckets (sign-ins from 127.0.0.1 within
  // the spec's fixed minute) must not count against this one.
  const redisUrl = process.env.UI_REDIS_URL ?? "redis://127.0.0.1:56379/3";
  const flushed = spawnSync("redis-cli", ["-u", redisUrl, "flushdb"], { encoding: "utf8" });
  if (flushed.status !== 0) throw new Error(`redis-cli flushdb on ${redisUrl}: ${flushed.stderr}`);
  const database = await createDatabase("sca_ui");
  // The portal's own backups and signing key: the backups page takes a backup (not into the checkout's .data), and the
  // project page's signed SBOM needs signed scans (a passwordless P-256 key, docs/signing.md).
  const scratch = mkdtempSync(join(tmpdir(), "sca-ui-"));
  const signingKey = join(scratch, "signing.key");
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  writeFileSync(signingKey, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  let portal: PortalProcesses | undefined;
  let frontend: FrontendInstance | undefined;
  try {
    const uiPort = await freePort();
    const origin = `http://127.0.0.1:${uiPort}`;
    portal = await startPortalProcesses({
      databaseUrl: database.url,
      label: "ui",
      productionHeap: false,
      env: {
        // A Redis index of its own: the fuzzing gate runs beside this suite on index 2, and both sign in from
        // 127.0.0.1 against the spec's fixed limit of 5 sign-ins a minute per address.
        REDIS_URL: redisUrl,
        CORS_ALLOWED_ORIGINS: origin,
        TRUST_PROXY_HOPS: "1",
        PASSWORD_RESET_BASE_URL: `${origin}/reset-password`,
        // Every page.goto loads the app afresh, which restores the session with a refresh, and every spec runs from
        // 127.0.0.1: the default 30 a minute per address is reached by the specs' navigation alone.
        REFRESH_RATE_LIMIT: "600/minute",
        // The suite registers its people through the API (run.ts, and specs that need one more role) from the same
        // address: more than the default 5 a minute.
        REGISTRATION_RATE_LIMIT: "600/minute",
        // The source scan's page shows components and progress, not scancode's file licenses: the stage is off
        // (about 7 CPU-seconds a tree, loading its license index).
        SCANCODE_MAX_FILES: "0",
        BACKUP_DIR: join(scratch, "backups"),
        BACKUP_AUTO_EVERY_HOURS: "0",
        SIGNING_KEY_PATH: signingKey,
      },
    });
    frontend = await startFrontend({
      env: { GATEWAY_URL: portal.origin, FRONTEND_DIST_DIR: join(FRONTEND, "dist"), LOG_LEVEL: "ERROR" },
      listen: { port: uiPort, host: "127.0.0.1" },
    });
    const who = await people(portal);
    // Asynchronously: the frontend's server runs in this process and must keep answering.
    const playwright = spawn(
      join(FRONTEND, "node_modules/.bin/playwright"),
      ["test", "-c", join(HERE, "playwright.config.ts"), ...process.argv.slice(2)],
      {
        cwd: FRONTEND,
        stdio: "inherit",
        env: {
          ...process.env,
          UI_BASE_URL: origin,
          UI_API_URL: `${portal.origin}/api`,
          UI_PEOPLE: JSON.stringify(who),
        },
      },
    );
    const status = await new Promise<number>((resolve) => playwright.once("exit", (code) => resolve(code ?? 1)));
    if (status !== 0) process.stdout.write(`the portal's logs: ${portal.logDir}\n`);
    else rmSync(portal.logDir, { recursive: true, force: true });
    return status;
  } finally {
    await frontend?.close();
    await portal?.stop();
    await database.drop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

process.exitCode = await main();
