// project_webhook_secrets: the one module that reads or writes it (docs/adr/0005).
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, containsPattern, preparedQuery, SNAPSHOT } from "@sca/db";
import type { WebhookProvider } from "../domain/webhooks.ts";
import { WebhookSecret, type WebhookSecretRow } from "./entities/webhook-secret.ts";

export async function webhookSecretOf(em: EntityManager, projectId: string): Promise<WebhookSecretRow | null> {
  return em.findOne(WebhookSecret, { projectId }, SNAPSHOT);
}

/** Stores the project's secret in place of any earlier one; true when one was replaced. */
export async function replaceWebhookSecret(em: EntityManager, row: WebhookSecretRow): Promise<boolean> {
  const replaced = await em.nativeDelete(WebhookSecret, { projectId: row.projectId });
  await em.insert(WebhookSecret, row);
  return replaced > 0;
}

/** A project a webhook's repository may name, with its secret of the provider (sealed), if it has one. */
export interface WebhookCandidate {
  id: string;
  teamId: string;
  name: string;
  slug: string;
  gitUrl: string;
  archived: boolean;
  defaultBranch: string | null;
  secretSealed: string | null;
}

// One statement, prepared (planned once per connection): every webhook asks it before anything else is done.
const WEBHOOK_CANDIDATES_SQL = `select p.id, p.team_id, p.name, p.slug, p.git_url, p.archived_at is not null as archived,
    p.default_branch, s.secret_sealed
  from projects p
  left join project_webhook_secrets s on s.project_id = p.id and s.provider = $1
  where p.git_url ilike any($2::text[])
  order by p.created_at, p.id
  limit $3`;

/**
 * Projects whose git_url contains one of `names` (case-insensitively), oldest first, with their secret of the
 * provider: the candidates the caller compares repository keys of.
 */
export async function webhookCandidates(
  em: EntityManager,
  provider: WebhookProvider,
  names: string[],
  limit: number,
): Promise<WebhookCandidate[]> {
  if (names.length === 0) return [];
  return preparedQuery(
    em,
    "projects_webhook_candidates",
    WEBHOOK_CANDIDATES_SQL,
    [provider, names.map(containsPattern), limit],
    {
      id: column.text,
      teamId: column.text,
      name: column.text,
      slug: column.text,
      gitUrl: column.text,
      archived: column.boolean,
      defaultBranch: column.text.nullable,
      secretSealed: column.text.nullable,
    },
  );
}
