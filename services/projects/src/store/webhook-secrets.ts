// project_webhook_secrets: the one module that reads or writes it (docs/adr/0005).
import type { EntityManager } from "@mikro-orm/postgresql";
import { containsPattern, SNAPSHOT } from "@sca/db";
import type { WebhookProvider } from "../domain/webhooks.ts";
import { Project, type ProjectRow } from "./entities/project.ts";
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

export interface WebhookCandidate {
  project: ProjectRow;
  secret: WebhookSecretRow | null;
}

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
  const projects = await em.find(
    Project,
    { $or: names.map((n) => ({ gitUrl: { $ilike: containsPattern(n) } })) },
    { ...SNAPSHOT, orderBy: { createdAt: "asc", id: "asc" }, limit },
  );
  if (projects.length === 0) return [];
  const secrets = await em.find(WebhookSecret, { projectId: { $in: projects.map((p) => p.id) }, provider }, SNAPSHOT);
  const byProject = new Map(secrets.map((s) => [s.projectId, s]));
  return projects.map((project) => ({ project, secret: byProject.get(project.id) ?? null }));
}
