// A real git server for tests that clone: `git http-backend` (git's own smart-HTTP server, a CGI program) behind a
// node:http bridge on a free loopback port. Repositories are made from files the test gives; the server can ask for
// Basic credentials and records every request (method, path, Host and whether it carried the credential).
import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface GitServerRequest {
  method: string;
  path: string;
  host: string;
  authorized: boolean;
}

export interface TestGitServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  requests: GitServerRequest[];
  /**
   * A repository `<name>.git` holding `files` in one commit on `main` (its HEAD), with `tags` pointing at it and a
   * second branch `other` holding only `otherFiles` when given. Answers its URL.
   */
  repo(
    name: string,
    files: Record<string, string | Buffer>,
    opts?: { tags?: string[]; otherFiles?: Record<string, string | Buffer>; executable?: string[] },
  ): Promise<string>;
  stop(): Promise<void>;
}

/** The environment of a test's own git commands: a fixed author, no system or user configuration read. */
export const GIT_ENV = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: "utf8" });
}

async function writeTree(dir: string, files: Record<string, string | Buffer>, executable: string[] = []) {
  for (const [path, body] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), body, { mode: executable.includes(path) ? 0o755 : 0o644 });
  }
}

/** `credential`: the server answers 401 to requests without exactly this user and password. */
export async function startGitServer(
  opts: { credential?: { user: string; password: string } } = {},
): Promise<TestGitServer> {
  const root = await mkdtemp(join(tmpdir(), "sca-git-server-"));
  const requests: GitServerRequest[] = [];
  const expected = opts.credential
    ? `Basic ${Buffer.from(`${opts.credential.user}:${opts.credential.password}`).toString("base64")}`
    : undefined;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://git.test");
    const authorized = expected !== undefined && req.headers.authorization === expected;
    requests.push({ method: req.method ?? "", path: url.pathname, host: req.headers.host ?? "", authorized });
    if (expected && !authorized) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="git"' }).end();
      return;
    }
    const cgi = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        REQUEST_METHOD: req.method,
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        HTTP_CONTENT_ENCODING: req.headers["content-encoding"] ?? "",
        HTTP_GIT_PROTOCOL: (req.headers["git-protocol"] as string | undefined) ?? "",
        REMOTE_ADDR: req.socket.remoteAddress ?? "",
        REMOTE_USER: authorized ? opts.credential!.user : "",
        ...GIT_ENV,
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      const endLf = head.indexOf("\n\n");
      const at = end >= 0 ? end : endLf;
      if (at < 0) return;
      const sep = end >= 0 ? 4 : 2;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, at).toString("latin1").split(/\r?\n/)) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(at + sep));
    });
    cgi.on("close", () => {
      if (!headersDone) res.writeHead(500);
      res.end();
    });
  };

  const server: Server = createServer(handle);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    port,
    requests,
    async repo(name, files, repoOpts = {}) {
      const work = await mkdtemp(join(tmpdir(), "sca-git-work-"));
      try {
        git(work, "init", "-q", "-b", "main");
        await writeTree(work, files, repoOpts.executable);
        git(work, "add", "-A");
        git(work, "commit", "-q", "-m", "the tree");
        for (const tag of repoOpts.tags ?? []) git(work, "tag", tag);
        if (repoOpts.otherFiles) {
          git(work, "checkout", "-q", "--orphan", "other");
          git(work, "rm", "-rq", ".");
          await writeTree(work, repoOpts.otherFiles);
          git(work, "add", "-A");
          git(work, "commit", "-q", "-m", "another tree");
          git(work, "checkout", "-q", "main");
        }
        git(root, "clone", "-q", "--bare", work, `${name}.git`);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
      return `${origin}/${name}.git`;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      await rm(root, { recursive: true, force: true });
    },
  };
}
