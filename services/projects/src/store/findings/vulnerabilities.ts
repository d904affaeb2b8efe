// The advisory data the scanner-runner sends (docs/findings.md, "Recording verdicts"): the vulnerabilities with their
// aliases and scores, and the verdict on each package version. Raw SQL (ADR 5): every write is a set-based statement
// over a JSON array of rows (jsonb_to_recordset) inside the caller's transaction, a bounded batch of rows each (a
// handful of statements for thousands of rows), never row by row; sent pipelined (@sca/db).
import type { EntityManager } from "@mikro-orm/postgresql";
import { boundQuery, boundStatement, column, Pipelined } from "@sca/db";
import type { PackageVersion } from "../../domain/package-version.ts";

export interface StoredVulnerability {
  id: string;
  aliases: string[];
  summary: string;
  severity: string;
  severityRank: number;
  cvssScore: number | null;
  cvssVector: string;
  publishedAt: string | null;
  modifiedAt: string | null;
  references: string[];
  epssScore: number | null;
  epssPercentile: number | null;
  knownExploited: boolean;
  kevDueDate: string;
}

export interface Verdict {
  pkg: PackageVersion;
  vulnerabilities: { id: string; fixedVersions: string[] }[];
}

/** Rows one statement writes at most: its JSON stays a few MB, whatever a scan names. */
const WRITE_BATCH_ROWS = 2000;

/** Inserts or replaces the vulnerabilities and their aliases (an alias moves to the vulnerability now naming it). */
export async function upsertVulnerabilities(em: EntityManager, vulns: StoredVulnerability[]): Promise<void> {
  const writes = new Pipelined();
  for (let i = 0; i < vulns.length; i += WRITE_BATCH_ROWS)
    await upsertVulnerabilityBatch(em, vulns.slice(i, i + WRITE_BATCH_ROWS), writes);
  await writes.settled();
}

async function upsertVulnerabilityBatch(
  em: EntityManager,
  vulns: StoredVulnerability[],
  writes: Pipelined,
): Promise<void> {
  await writes.send(
    boundStatement(
      em,
      `insert into vulnerabilities as v (id, aliases, summary, severity, severity_rank, cvss_score, cvss_vector,
       published_at, modified_at, "references", epss_score, epss_percentile, known_exploited, kev_due_date, updated_at)
     select id, aliases, summary, severity, severity_rank, cvss_score, cvss_vector, published_at, modified_at,
       refs, epss_score, epss_percentile, known_exploited, kev_due_date, now()
     from jsonb_to_recordset($1::jsonb) as x(id text, aliases jsonb, summary text, severity text, severity_rank int,
       cvss_score float8, cvss_vector text, published_at timestamptz, modified_at timestamptz, refs jsonb,
       epss_score float8, epss_percentile float8, known_exploited boolean, kev_due_date text)
     on conflict (id) do update set aliases = excluded.aliases, summary = excluded.summary,
       severity = excluded.severity, severity_rank = excluded.severity_rank, cvss_score = excluded.cvss_score,
       cvss_vector = excluded.cvss_vector, published_at = excluded.published_at, modified_at = excluded.modified_at,
       "references" = excluded."references", epss_score = excluded.epss_score,
       epss_percentile = excluded.epss_percentile, known_exploited = excluded.known_exploited,
       kev_due_date = excluded.kev_due_date, updated_at = now()`,
      [
        JSON.stringify(
          vulns.map((v) => ({
            id: v.id,
            aliases: v.aliases,
            summary: v.summary,
            severity: v.severity,
            severity_rank: v.severityRank,
            cvss_score: v.cvssScore,
            cvss_vector: v.cvssVector,
            published_at: v.publishedAt,
            modified_at: v.modifiedAt,
            refs: v.references,
            epss_score: v.epssScore,
            epss_percentile: v.epssPercentile,
            known_exploited: v.knownExploited,
            kev_due_date: v.kevDueDate,
          })),
        ),
      ],
    ),
  );
  const aliases = vulns.flatMap((v) => [v.id, ...v.aliases].map((alias) => ({ alias, id: v.id })));
  await writes.send(
    boundStatement(
      em,
      `insert into vulnerability_aliases (alias, vulnerability_id)
     select distinct on (alias) alias, id from jsonb_to_recordset($1::jsonb) as x(alias text, id text)
     on conflict (alias) do update set vulnerability_id = excluded.vulnerability_id`,
      [JSON.stringify(aliases)],
    ),
  );
}

/**
 * Replaces the scores and flags of the named vulnerabilities (by id or alias); answers how many rows changed and the
 * vulnerabilities this call put on the known-exploited catalog (not listed before it), for the KEV alerts. The
 * second reference to the table (`old`) reads each row as it was before the update.
 */
export async function updateVulnerabilityScores(
  em: EntityManager,
  vulns: StoredVulnerability[],
): Promise<{ updated: number; newlyKevListed: string[] }> {
  if (vulns.length === 0) return { updated: 0, newlyKevListed: [] };
  const rows = await boundQuery(
    em,
    `update vulnerabilities v set epss_score = x.epss_score, epss_percentile = x.epss_percentile,
       known_exploited = x.known_exploited, kev_due_date = x.kev_due_date, cvss_score = coalesce(x.cvss_score, v.cvss_score),
       updated_at = now()
     from jsonb_to_recordset($1::jsonb) as x(id text, epss_score float8, epss_percentile float8, known_exploited boolean,
       kev_due_date text, cvss_score float8)
     join vulnerability_aliases a on a.alias = x.id
     join vulnerabilities old on old.id = a.vulnerability_id
     where v.id = a.vulnerability_id and (v.epss_score, v.epss_percentile, v.known_exploited, v.kev_due_date)
       is distinct from (x.epss_score, x.epss_percentile, x.known_exploited, x.kev_due_date)
     returning v.id, v.known_exploited and not old.known_exploited as newly_listed`,
    [
      JSON.stringify(
        vulns.map((v) => ({
          id: v.id,
          epss_score: v.epssScore,
          epss_percentile: v.epssPercentile,
          known_exploited: v.knownExploited,
          kev_due_date: v.kevDueDate,
          cvss_score: v.cvssScore,
        })),
      ),
    ],
    { id: column.text, newlyListed: column.boolean },
  );
  return { updated: rows.length, newlyKevListed: rows.filter((r) => r.newlyListed).map((r) => r.id) };
}

/** The verdicts replace the stored ones of the same package versions. */
export async function replaceVerdicts(em: EntityManager, verdicts: Verdict[]): Promise<void> {
  // Every verdict's old rows go before any new row is written: a package version named twice keeps both lists' rows.
  const writes = new Pipelined();
  for (let i = 0; i < verdicts.length; i += WRITE_BATCH_ROWS)
    await writes.send(
      boundStatement(
        em,
        `delete from package_vulnerabilities p using jsonb_to_recordset($1::jsonb) as x(ecosystem text, name text, version text)
         where p.ecosystem = x.ecosystem and p.name = x.name and p.version = x.version`,
        [JSON.stringify(verdicts.slice(i, i + WRITE_BATCH_ROWS).map((v) => v.pkg))],
      ),
    );
  let rows: { ecosystem: string; name: string; version: string; vulnerability_id: string; fixed_versions: string[] }[] =
    [];
  const flush = async () => {
    if (rows.length === 0) return;
    await writes.send(
      boundStatement(
        em,
        `insert into package_vulnerabilities (ecosystem, name, version, vulnerability_id, fixed_versions)
         select ecosystem, name, version, vulnerability_id, fixed_versions
         from jsonb_to_recordset($1::jsonb) as x(ecosystem text, name text, version text, vulnerability_id text,
           fixed_versions jsonb)
         on conflict do nothing`,
        [JSON.stringify(rows)],
      ),
    );
    rows = [];
  };
  for (const v of verdicts) {
    for (const a of v.vulnerabilities) rows.push({ ...v.pkg, vulnerability_id: a.id, fixed_versions: a.fixedVersions });
    if (rows.length >= WRITE_BATCH_ROWS) await flush();
  }
  await flush();
  await writes.settled();
}
