// PostgreSQL's own dump and restore programs (Debian's postgresql-client, the major of the server or newer) as child
// processes: pg_dump writes the custom format, pg_restore replays it in one transaction. The DSN's password goes
// through PGPASSWORD, never the command line (which `ps` shows); their error output is kept short and never holds it.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface PgTools {
  /** Dumps the schemas (and everything in them but `excludeTables`, schema-qualified) into `file`. */
  dump(opts: { schemas: string[]; excludeTables: string[]; file: string; signal?: AbortSignal }): Promise<void>;
  /**
   * Replays a dump over what is there (each object dropped, then made again) in one transaction: it applies whole
   * or not at all. `lockTimeoutMs` bounds each wait on a lock a running service holds.
   */
  restore(opts: { file: string; lockTimeoutMs: number; signal?: AbortSignal }): Promise<void>;
  /** pg_dump's version line, e.g. "pg_dump (PostgreSQL) 17.6 (Debian 17.6-0+deb13u1)". */
  version(): Promise<string>;
}

/** `configured`, else the newest Debian PostgreSQL bin directory, else "" (the PATH). */
export function pgBinDir(configured: string): string {
  if (configured) return configured;
  try {
    const majors = readdirSync("/usr/lib/postgresql")
      .filter((d) => /^\d+$/.test(d))
      .sort((a, b) => Number(b) - Number(a));
    return majors[0] ? `/usr/lib/postgresql/${majors[0]}/bin` : "";
  } catch {
    return "";
  }
}

/** The DSN without its password, and the password. */
function splitPassword(databaseUrl: string): { dsn: string; password: string } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = "";
  return { dsn: url.toString(), password };
}

const STDERR_KEPT = 4000;

function run(
  bin: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
  outputKept = STDERR_KEPT,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env, stdio: ["ignore", "pipe", "pipe"], signal });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out = (out + d.toString()).slice(0, outputKept)));
    child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-STDERR_KEPT)));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(out);
      else
        reject(
          new Error(`${bin.split("/").at(-1)} exited with ${code}: ${err.trim().split("\n").slice(-3).join(" ")}`),
        );
    });
  });
}

export function pgTools(databaseUrl: string, binDir: string): PgTools {
  const { dsn, password } = splitPassword(databaseUrl);
  const tool = (name: string) => (binDir ? join(binDir, name) : name);
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(password ? { PGPASSWORD: password } : {}),
    ...extra,
  });
  return {
    async dump({ schemas, excludeTables, file, signal }) {
      const args = ["--format=custom", "--no-owner", "--no-privileges", `--file=${file}`, `--dbname=${dsn}`];
      for (const s of schemas) args.push(`--schema=${s}`);
      for (const t of excludeTables) args.push(`--exclude-table=${t}`);
      await run(tool("pg_dump"), args, env(), signal);
    },
    async restore({ file, lockTimeoutMs, signal }) {
      // The schemas themselves stay: admin's holds backup_tasks, which no backup carries, so dropping it would fail.
      const contents = await run(tool("pg_restore"), ["--list", file], env(), signal, Number.MAX_SAFE_INTEGER);
      const listFile = `${file}.list`;
      await writeFile(listFile, contents.replace(/^(\d+; \d+ \d+ SCHEMA .*)$/gm, ";$1"));
      const args = [
        "--clean",
        "--if-exists",
        "--single-transaction",
        "--exit-on-error",
        "--no-owner",
        "--no-privileges",
      ];
      args.push(`--use-list=${listFile}`, `--dbname=${dsn}`, file);
      try {
        await run(tool("pg_restore"), args, env({ PGOPTIONS: `-c lock_timeout=${lockTimeoutMs}` }), signal);
      } finally {
        await rm(listFile, { force: true });
      }
    },
    async version() {
      return (await run(tool("pg_dump"), ["--version"], env())).trim();
    },
  };
}
