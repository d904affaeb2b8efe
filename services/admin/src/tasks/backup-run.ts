// Taking a backup: every service's schema in one pg_dump (one snapshot, custom format), then every object of the
// artefact store copied file by file with its digest, then the manifest; the directory appears under its name only
// when whole. Automatic backups beyond BACKUP_AUTO_KEEP are removed after a new one.
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { column, rawQuery } from "@sca/db";
import {
  ARTEFACTS_FOLDER,
  DATABASE_FILE,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  type BackupManifest,
  type FileRecord,
} from "../domain/backup-manifest.ts";
import { automaticBeyond, parseBackupName } from "../domain/backup-name.ts";
import { digestOf } from "../store/backup-directory.ts";
import { schemaVersions } from "../store/schema-versions.ts";
import { RESTORE_UPLOADS, type BackupDeps } from "./backup-deps.ts";
import type { TaskBody } from "./task-runner.ts";

/** Writes a stream to `path`, answering its size and SHA-256. */
async function writeDigested(body: Readable, path: string, signal: AbortSignal) {
  const hash = createHash("sha256");
  let sizeBytes = 0;
  const digest = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      sizeBytes += chunk.length;
      done(null, chunk);
    },
  });
  await mkdir(dirname(path), { recursive: true });
  await pipeline(body, digest, createWriteStream(path), { signal });
  return { sizeBytes, sha256: hash.digest("hex") };
}

export function backupTask(deps: BackupDeps, name: string): TaskBody {
  return async (progress, signal) => {
    const work = await deps.directory.workingDir(name);
    try {
      await progress("reading the schemas", 2);
      const schemas = (await schemaVersions(deps.orm.em.fork(), deps.schemas)).filter((s) => s.migrations.length);
      await progress("dumping the database", 5);
      const dumpFile = join(work, DATABASE_FILE);
      await deps.pg.dump({
        schemas: schemas.map((s) => s.schema),
        excludeTables: [`${deps.adminSchema}.backup_tasks`],
        file: dumpFile,
        signal,
      });
      const files: FileRecord[] = [{ path: DATABASE_FILE, ...sized(await digestOf(dumpFile)) }];
      await progress("copying the artefact store", 40);
      const keys: string[] = [];
      for await (const listed of deps.store.list())
        if (!listed.key.startsWith(`${RESTORE_UPLOADS}/`)) keys.push(listed.key);
      for (const [i, key] of keys.entries()) {
        const body = await deps.store.get(key);
        // Deleted since the listing (a retention sweep): not part of the backup.
        if (!body) continue;
        const path = `${ARTEFACTS_FOLDER}/${key}`;
        files.push({ path, ...sized(await writeDigested(body, join(work, path), signal)) });
        if (i % 100 === 99) await progress("copying the artefact store", 40 + Math.floor((50 * (i + 1)) / keys.length));
      }
      await progress("writing the manifest", 95);
      const manifest: BackupManifest = {
        format: MANIFEST_FORMAT,
        name,
        kind: parseBackupName(name)!.kind,
        created_at: new Date().toISOString(),
        portal: deps.portal,
        postgres: { server_version: await serverVersion(deps), pg_dump_version: await deps.pg.version() },
        schemas,
        files,
      };
      await writeFile(join(work, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
      await deps.directory.commit(work, name);
    } catch (err) {
      await deps.directory.discard(work);
      throw err;
    }
    if (parseBackupName(name)!.kind === "automatic") await pruneAutomatic(deps);
  };
}

const sized = (d: { sizeBytes: number; sha256: string }) => ({ size_bytes: d.sizeBytes, sha256: d.sha256 });

async function serverVersion(deps: BackupDeps): Promise<string> {
  const [row] = await rawQuery(deps.orm.em.fork(), "select current_setting('server_version') as v", [], {
    v: column.text,
  });
  return row?.v ?? "";
}

async function pruneAutomatic(deps: BackupDeps): Promise<void> {
  const names = (await deps.directory.list()).map((b) => b.manifest.name);
  for (const name of automaticBeyond(names, deps.autoKeep)) await deps.directory.remove(name);
}
