// An import of the local vulnerability database from a source (docs/vulnerability-database.md). Atomic: the whole
// source is read and checked before one transaction writes, so a failed, partial or corrupt source changes nothing.
// The changed documents wait in vulndb_staged_advisories meanwhile (bounded memory whatever the source's size).
// Incremental: an advisory whose id and `modified` are unchanged is not rewritten. A malformed advisory is skipped
// and counted. A source with no readable advisory at all is refused (it would empty the database).
// The package names an import changed (those of the new documents and of the documents they replace or remove) are
// queued for a re-match in the same transaction (rematch.ts), so new data always reaches the held versions.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, rawStatement } from "@sca/db";
import { normalisedName } from "@sca/purl-package";
import { isWithdrawn, MalformedAdvisory, readAdvisory, type Advisory } from "../domain/vulndb/advisory.ts";
import { queueRematch, type PackageName } from "../store/pending-refreshes.ts";
import { VulndbImport, type VulndbImportRow } from "../store/entities/vulndb-import.ts";
import { advisoryDocuments, AdvisorySourceError, sourceLabel } from "./advisory-source.ts";

export const STATUS_NAME = "osv";
const MAX_REASONS = 20;
const WRITE_BATCH = 500;

export interface ImportOutcome {
  result: "imported" | "unchanged" | "failed";
  databaseVersion: string;
  record: VulndbImportRow;
}

interface Changed {
  id: string;
  modified: Date;
  text: string;
}

/** The database version: a digest of every (id, modified), so instances importing the same data agree. */
async function databaseVersionOf(em: EntityManager): Promise<string> {
  const rows = await rawQuery(
    em,
    `select md5(string_agg(id || '@' || to_char(modified at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), ',' order by id)) as v from vulndb_advisories`,
    [],
    { v: column.text.nullable },
  );
  return rows[0]?.v ?? "empty";
}

export async function currentStatus(em: EntityManager): Promise<VulndbImportRow | null> {
  return em.findOne(VulndbImport, { name: STATUS_NAME }, { disableIdentityMap: true });
}

export async function importAdvisories(
  em: EntityManager,
  source: string,
  options: { signal: AbortSignal; now?: () => Date },
): Promise<ImportOutcome> {
  const now = options.now ?? (() => new Date());
  const started = now();
  const counts = {
    advisoryCount: 0,
    addedCount: 0,
    updatedCount: 0,
    unchangedCount: 0,
    removedCount: 0,
    withdrawnCount: 0,
    skippedCount: 0,
  };
  const reasons: string[] = [];
  const previous = await currentStatus(em);
  const base = {
    name: STATUS_NAME,
    source: sourceLabel(source),
    lastAttemptAt: started,
    lastSucceededAt: previous?.lastSucceededAt ?? null,
  };
  const existing = new Map<string, number>();
  // Milliseconds since the epoch from PostgreSQL itself: the driver's Date misreads years below 100 (Go's 0001-01-01).
  const stored = await rawQuery(
    em,
    `select id, (extract(epoch from modified) * 1000)::float8 as ms from vulndb_advisories`,
    [],
    {
      id: column.text,
      ms: column.text,
    },
  );
  for (const row of stored) existing.set(row.id, Math.round(Number(row.ms)));

  // Staged rows of an import that died (a killed instance) are left behind: cleared after a day.
  await rawStatement(em, `delete from vulndb_staged_advisories where staged_at < now() - interval '1 day'`);
  const importId = randomUUID();
  let failure: string | null = null;
  let pending: Changed[] = [];
  let changedCount = 0;
  const changedIds: string[] = [];
  const changedPackages = new Map<string, PackageName>();
  const stage = async () => {
    if (pending.length === 0) return;
    await rawStatement(
      em,
      `insert into vulndb_staged_advisories (import_id, id, modified, document)
       select ?::uuid, x.id, x.modified, x.document::jsonb
       from jsonb_to_recordset(?::jsonb) as x(id text, modified timestamptz, document text)`,
      [
        importId,
        JSON.stringify(pending.map((c) => ({ id: c.id, modified: c.modified.toISOString(), document: c.text }))),
      ],
    );
    pending = [];
  };
  const seen = new Set<string>();
  try {
    for await (const doc of advisoryDocuments(source, options.signal)) {
      const skip = (why: string) => {
        counts.skippedCount++;
        if (reasons.length < MAX_REASONS) reasons.push(`${doc.name}: ${why}`);
      };
      if (doc.text === null) {
        skip(doc.unreadable ?? "unreadable");
        continue;
      }
      let advisory;
      try {
        advisory = readAdvisory(JSON.parse(doc.text));
      } catch (err) {
        skip(err instanceof MalformedAdvisory ? err.message : "not valid JSON");
        continue;
      }
      if (seen.has(advisory.id)) {
        skip(`a second advisory with id ${advisory.id}`);
        continue;
      }
      seen.add(advisory.id);
      counts.advisoryCount++;
      if (isWithdrawn(advisory, started)) counts.withdrawnCount++;
      const before = existing.get(advisory.id);
      if (before === advisory.modified.getTime()) counts.unchangedCount++;
      else {
        if (before === undefined) counts.addedCount++;
        else counts.updatedCount++;
        pending.push({ id: advisory.id, modified: advisory.modified, text: doc.text });
        changedCount++;
        addPackagesOf(advisory, changedPackages);
        if (before !== undefined) changedIds.push(advisory.id);
        if (pending.length >= WRITE_BATCH) await stage();
      }
    }
    if (counts.advisoryCount === 0) throw new AdvisorySourceError("The advisory source holds no readable advisory.");
    await stage();
  } catch (err) {
    failure = err instanceof AdvisorySourceError ? err.message : "The advisory source could not be read.";
  }

  if (failure !== null) {
    await rawStatement(em, `delete from vulndb_staged_advisories where import_id = ?`, [importId]);
    const record = await writeStatus(em, {
      ...base,
      ...counts,
      databaseVersion: previous?.databaseVersion ?? "empty",
      lastResult: "failed",
      durationMs: now().getTime() - started.getTime(),
      skippedReasons: reasons,
      failure,
    });
    return { result: "failed", databaseVersion: record.databaseVersion, record };
  }

  const removed = [...existing.keys()].filter((id) => !seen.has(id));
  counts.removedCount = removed.length;
  return em.transactional(async (tx) => {
    // One writer at a time over every instance; a second import then finds the first's rows unchanged.
    await rawQuery(tx, `select pg_advisory_xact_lock(hashtext('sca.vulndb.import'))`);
    await storedPackagesOf(tx, [...changedIds, ...removed], changedPackages);
    await rawStatement(
      tx,
      `insert into vulndb_advisories (id, modified, document, imported_at)
       select id, modified, document, now() from vulndb_staged_advisories where import_id = ?
       on conflict (id) do update set modified = excluded.modified, document = excluded.document, imported_at = now()
       where vulndb_advisories.modified is distinct from excluded.modified`,
      [importId],
    );
    await rawStatement(tx, `delete from vulndb_staged_advisories where import_id = ?`, [importId]);
    for (let i = 0; i < removed.length; i += WRITE_BATCH)
      await rawStatement(tx, `delete from vulndb_advisories where id in (select jsonb_array_elements_text(?::jsonb))`, [
        JSON.stringify(removed.slice(i, i + WRITE_BATCH)),
      ]);
    await queueRematch(tx, [...changedPackages.values()]);
    const databaseVersion = await databaseVersionOf(tx);
    const result = changedCount + removed.length > 0 ? "imported" : "unchanged";
    const record = await writeStatus(tx, {
      ...base,
      ...counts,
      databaseVersion,
      lastResult: result,
      lastSucceededAt: started,
      durationMs: now().getTime() - started.getTime(),
      skippedReasons: reasons,
      failure: null,
    });
    return { result, databaseVersion, record };
  });
}

const packageKey = (ecosystem: string, name: string) => `${ecosystem}\u0000${name}`;

function addPackagesOf(advisory: Advisory, into: Map<string, PackageName>): void {
  for (const a of advisory.affected)
    into.set(packageKey(a.ecosystem, a.name), { ecosystem: a.ecosystem, name: a.name });
}

/** The package names the stored documents of `ids` (before they are replaced or removed) speak of. */
async function storedPackagesOf(em: EntityManager, ids: readonly string[], into: Map<string, PackageName>) {
  for (let i = 0; i < ids.length; i += WRITE_BATCH) {
    const rows = await rawQuery(
      em,
      `select distinct a->'package'->>'ecosystem' as ecosystem, a->'package'->>'name' as name
       from vulndb_advisories v cross join lateral jsonb_array_elements(
         case jsonb_typeof(v.document->'affected') when 'array' then v.document->'affected' else '[]'::jsonb end) a
       where v.id in (select jsonb_array_elements_text(?::jsonb))`,
      [JSON.stringify(ids.slice(i, i + WRITE_BATCH))],
      { ecosystem: column.text.nullable, name: column.text.nullable },
    );
    for (const r of rows)
      if (r.ecosystem && r.name) {
        const name = normalisedName(r.ecosystem, r.name);
        into.set(packageKey(r.ecosystem, name), { ecosystem: r.ecosystem, name });
      }
  }
}

async function writeStatus(em: EntityManager, row: VulndbImportRow): Promise<VulndbImportRow> {
  await em.createQueryBuilder(VulndbImport).insert(row).onConflict("name").merge().execute("run");
  return row;
}
