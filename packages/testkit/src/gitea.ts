// A real source host for the webhook, remediation and PR-comment tests (docs/scm.md): Gitea (scripts/setup/gitea.sh)
// on a free loopback port, SQLite, no internet. It serves its REST API and git over HTTP, sends push and
// pull-request webhooks signed in X-Hub-Signature-256 (host A's header) to loopback addresses, and has a
// pull-request API. One instance per test run, shared by the files that need it: the first to ask starts it
// (detached, so it outlives that file's worker) and writes where it is; the others read that; the run's global
// teardown stops it (stopSharedGitea). Each test makes repositories of its own under the run's admin user.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, openSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { freePort } from "./free-port.ts";
import { GIT_ENV } from "./git-server.ts";
import { TEST_RUN_KEY } from "./schema-template.ts";
import { pinnedVersion, toolsDir } from "./tools.ts";

export interface SharedGitea {
  /** http://localhost:<port>: what clone URLs and webhook payloads name. */
  origin: string;
  /** The run's admin user and an access token of it (scopes: all). */
  user: string;
  password: string;
  token: string;
  /** `${origin}/api/v1${path}` as the admin, JSON in and out; throws on a status outside 2xx. */
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>;
  /** A new repository of the admin, initialised with an empty commit on `main`; answers owner/name. */
  createRepo(name: string): Promise<string>;
  /** Commits `files` on `branch` (made from main when new) and pushes it over HTTP with git. */
  push(repo: string, branch: string, files: Record<string, string>, message?: string): Promise<string>;
  /** An http://localhost:<port>/<repo>.git clone URL. */
  cloneUrl(repo: string): string;
}

interface Where {
  origin: string;
  user: string;
  password: string;
  token: string;
  pid: number;
}

function giteaHome(): string {
  return join(toolsDir(), `gitea-${pinnedVersion("GITEA_VERSION")}`);
}

function runDir(): string {
  return join(tmpdir(), `sca-gitea-${process.env[TEST_RUN_KEY] ?? "adhoc"}`);
}

function appIni(dir: string, port: number): string {
  // Gitea refuses to run as root unless told; test machines and CI containers run as root, and this instance is
  // loopback-only and thrown away with the run.
  const asRoot = process.getuid?.() === 0 ? "I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true\n" : "";
  return `APP_NAME = sca-test
RUN_MODE = prod
RUN_USER = ${userInfo().username}
WORK_PATH = ${dir}
${asRoot}
[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = ${port}
DOMAIN = localhost
ROOT_URL = http://localhost:${port}/
DISABLE_SSH = true
START_SSH_SERVER = false
OFFLINE_MODE = true
LFS_START_SERVER = false
STATIC_ROOT_PATH = ${join(giteaHome(), "root")}
APP_DATA_PATH = ${join(dir, "data")}

[database]
DB_TYPE = sqlite3
PATH = ${join(dir, "gitea.db")}
SQLITE_JOURNAL_MODE = WAL

[repository]
ROOT = ${join(dir, "repositories")}
DEFAULT_BRANCH = main

[security]
INSTALL_LOCK = true
; Webhooks go to the portal under test, on loopback.
ALLOWED_HOST_LIST = loopback
SECRET_KEY = ${randomBytes(24).toString("hex")}
INTERNAL_TOKEN = ${randomBytes(48).toString("base64url")}
PASSWORD_HASH_ALGO = pbkdf2_hi
MIN_PASSWORD_LENGTH = 8
PASSWORD_COMPLEXITY = off

[oauth2]
ENABLED = false

[service]
DISABLE_REGISTRATION = true
REQUIRE_SIGNIN_VIEW = false
DEFAULT_KEEP_EMAIL_PRIVATE = true

[webhook]
DELIVER_TIMEOUT = 10

[queue]
TYPE = channel

[indexer]
REPO_INDEXER_ENABLED = false
ISSUE_INDEXER_TYPE = db

[mailer]
ENABLED = false

[cron]
ENABLED = false

[cron.update_checker]
ENABLED = false

[actions]
ENABLED = false

[packages]
ENABLED = false

[log]
MODE = file
LEVEL = warn
ROOT_PATH = ${join(dir, "log")}
`;
}

/** Starts the run's Gitea (the caller holds the run directory's lock). */
async function start(dir: string): Promise<Where> {
  const bin = join(giteaHome(), "gitea");
  if (!existsSync(bin)) throw new Error(`Gitea is not built (${bin}): run bash scripts/setup.sh test`);
  const port = await freePort();
  const config = join(dir, "app.ini");
  await mkdir(join(dir, "data"), { recursive: true });
  await mkdir(join(dir, "log"), { recursive: true });
  await writeFile(config, appIni(dir, port));
  // Never GIT_ENV (the test's own git commands'): Gitea writes its global git configuration, and git writes a config
  // file by renaming a new one over it, which would replace GIT_CONFIG_GLOBAL's /dev/null with a regular file.
  const env = { ...process.env, GITEA_WORK_DIR: dir, HOME: dir };
  const gitea = (...args: string[]) =>
    execFileSync(bin, [...args, "--config", config], { env, cwd: dir, encoding: "utf8", stdio: "pipe" });
  gitea("migrate");
  const user = "sca-admin";
  const password = `pw-${randomBytes(12).toString("hex")}`;
  gitea(
    "admin",
    "user",
    "create",
    "--username",
    user,
    "--password",
    password,
    "--email",
    "sca-admin@example.com",
    "--admin",
    "--must-change-password=false",
  );
  const token = gitea("admin", "user", "generate-access-token", "--username", user, "--scopes", "all", "--raw").trim();
  const out = openSync(join(dir, "log", "console.log"), "a");
  const child = spawn(bin, ["web", "--config", config], { env, cwd: dir, stdio: ["ignore", out, out], detached: true });
  child.unref();
  const origin = `http://localhost:${port}`;
  // Its first start migrates nothing (done above) but still takes seconds on a loaded machine.
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) break;
    const up = await fetch(`http://127.0.0.1:${port}/api/v1/version`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { origin, user, password, token, pid: child.pid! };
    await delay(100);
  }
  child.kill("SIGKILL");
  throw new Error(`Gitea did not start; see ${join(dir, "log")}`);
}

/** Where the run's Gitea is, starting it when no file of the run has. */
async function where(): Promise<Where> {
  const dir = runDir();
  const state = join(dir, "where.json");
  await mkdir(dirname(dir), { recursive: true });
  let mine = false;
  try {
    await mkdir(dir);
    mine = true;
  } catch {
    // Another file of the run is starting it, or has.
  }
  if (mine) {
    const started = await start(dir);
    // Written aside and renamed, so a reader never sees half of it.
    await writeFile(`${state}.partial`, JSON.stringify(started));
    await rename(`${state}.partial`, state);
    return started;
  }
  for (let i = 0; i < 1200; i++) {
    const text = await readFile(state, "utf8").catch(() => "");
    if (text) return JSON.parse(text) as Where;
    await delay(100);
  }
  throw new Error(`the run's Gitea did not start (${dir})`);
}

let shared: Promise<SharedGitea> | undefined;

/** The run's Gitea. */
export function sharedGitea(): Promise<SharedGitea> {
  shared ??= where().then(client);
  return shared;
}

/** Stops the run's Gitea, if one was started (the run's global teardown). */
export async function stopSharedGitea(): Promise<void> {
  const dir = runDir();
  const text = await readFile(join(dir, "where.json"), "utf8").catch(() => "");
  if (text) {
    try {
      process.kill((JSON.parse(text) as Where).pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
  await rm(dir, { recursive: true, force: true });
}

function client(w: Where): SharedGitea {
  const auth = `token ${w.token}`;
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${w.origin}/api/v1${path}`, {
      method,
      headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`Gitea ${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : {}) as T;
  };
  const cloneUrl = (repo: string) => `${w.origin}/${repo}.git`;
  const authedUrl = (repo: string) => {
    const url = new URL(cloneUrl(repo));
    url.username = w.user;
    url.password = w.password;
    return url.href;
  };
  return {
    origin: w.origin,
    user: w.user,
    password: w.password,
    token: w.token,
    api,
    cloneUrl,
    async createRepo(name) {
      await api("POST", "/user/repos", { name, auto_init: true, default_branch: "main", private: false });
      return `${w.user}/${name}`;
    },
    async push(repo, branch, files, message = "Change files") {
      const work = await mkdtemp(join(tmpdir(), "sca-gitea-push-"));
      const git = (...args: string[]) =>
        execFileSync("git", args, { cwd: work, env: { ...process.env, ...GIT_ENV }, encoding: "utf8", stdio: "pipe" });
      try {
        git("init", "-q");
        git("fetch", "-q", authedUrl(repo), "main");
        git("checkout", "-q", "-b", branch, "FETCH_HEAD");
        for (const [path, body] of Object.entries(files)) {
          await mkdir(dirname(join(work, path)), { recursive: true });
          await writeFile(join(work, path), body);
        }
        git("add", "-A");
        git("commit", "-q", "-m", message);
        git("push", "-q", authedUrl(repo), `HEAD:refs/heads/${branch}`);
        return git("rev-parse", "HEAD").trim();
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
  };
}
