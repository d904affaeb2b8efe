import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * The repository-webhook secret of a project (docs/scm.md): one per project, for one provider, sealed with
 * @sca/secret-box; issuing again replaces the row, so the old secret stops at once.
 */
export const WebhookSecret = defineEntity({
  name: "WebhookSecret",
  tableName: "project_webhook_secrets",
  properties: {
    projectId: p.uuid().primary(),
    provider: p.string().length(16).$type<"scm_a" | "scm_b">(),
    secretSealed: p.text(),
    issuedAt: p.datetime(),
  },
  indexes: [{ name: "project_webhook_secrets_provider", properties: ["provider"] }],
  checks: [{ name: "project_webhook_secrets_provider_check", expression: "provider in ('scm_a', 'scm_b')" }],
});

export type WebhookSecretRow = InferEntity<typeof WebhookSecret>;
