import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A team's source-host app (GitHub-App style; docs/scm.md, "App credentials"). The private key and the webhook
 * secret are sealed with @sca/secret-box and never answered; revoking sets revoked_at (soft).
 */
export const AppCredential = defineEntity({
  name: "AppCredential",
  tableName: "scm_app_credentials",
  properties: {
    id: p.uuid().primary(),
    teamId: p.uuid(),
    appId: p.string().length(64),
    appSlug: p.string().length(255).strictNullable(),
    privateKeySealed: p.text(),
    webhookSecretSealed: p.text().strictNullable(),
    createdByUserId: p.uuid().strictNullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    revokedAt: p.datetime().strictNullable(),
  },
  indexes: [{ name: "scm_app_credentials_team", properties: ["teamId", "createdAt"] }],
});

export type AppCredentialRow = InferEntity<typeof AppCredential>;

/** An installation of an app, linked to one project of the app's team and one repository of the host. */
export const AppInstallation = defineEntity({
  name: "AppInstallation",
  tableName: "scm_app_installations",
  properties: {
    appCredentialId: p.uuid().primary(),
    installationId: p.string().length(64).primary(),
    accountLogin: p.string().length(255).strictNullable(),
    projectId: p.uuid().strictNullable(),
    repositoryFullName: p.string().length(255).strictNullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [{ name: "scm_app_installations_project", properties: ["projectId"] }],
});

export type AppInstallationRow = InferEntity<typeof AppInstallation>;

export type PullRequestState = "open" | "closed" | "merged";

export type RemediationStatus = "creating" | "open" | "failed" | "superseded";

export interface PackageChange {
  package: string;
  from: string;
  to: string;
}

/**
 * A remediation pull request (docs/scm.md, "Remediation pull requests"): written `creating` before the host is
 * written to. At most one creating-or-open record per project and fingerprint (a partial unique index).
 */
export const RemediationPullRequest = defineEntity({
  name: "RemediationPullRequest",
  tableName: "remediation_pull_requests",
  properties: {
    id: p.uuid().primary(),
    projectId: p.uuid(),
    ecosystem: p.string().length(16).$type<"npm">(),
    repositoryFullName: p.string().length(255),
    headBranch: p.string().length(255),
    baseBranch: p.string().length(255),
    prNumber: p.integer().strictNullable(),
    prUrl: p.string().length(2048).strictNullable(),
    /** The host's state of the pull request as last read: open, closed or merged; null before it exists. */
    prState: p.string().length(16).$type<PullRequestState>().strictNullable(),
    status: p.string().length(16).$type<RemediationStatus>(),
    packageChanges: p.json<PackageChange[]>(),
    fingerprint: p.string().length(64),
    /** The host's HTTP status of a failed remote write; never its body. */
    failureStatus: p.integer().strictNullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [{ name: "remediation_pull_requests_project", properties: ["projectId", "createdAt"] }],
  uniques: [
    {
      name: "remediation_pull_requests_live",
      expression:
        "create unique index remediation_pull_requests_live on remediation_pull_requests (project_id, fingerprint) " +
        "where status in ('creating', 'open')",
    },
  ],
  checks: [
    {
      name: "remediation_pull_requests_status_check",
      expression: "status in ('creating', 'open', 'failed', 'superseded')",
    },
  ],
});

export type RemediationPullRequestRow = InferEntity<typeof RemediationPullRequest>;
