// The one table of the Connect services the gateway calls, per domain service (the names of SERVICES in
// @sca/runtime). Each becomes `ctx.clients.<service>.<name>`, at the service's configured address
// (<SERVICE>_RPC_URL, or the single-machine default). A service's clients are one line here, e.g. `projects: { projects: ProjectService },`.
// A call made for a request passes the handler's `call`, which carries the caller (src/api/route.ts).
import type { DescService } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import { AuditService } from "@sca/proto/sca/admin/v1/audit_pb.ts";
import { TrackerCredentialService } from "@sca/proto/sca/admin/v1/tracker_credentials_pb.ts";
import { RegistryCredentialService } from "@sca/proto/sca/admin/v1/registry_credentials_pb.ts";
import { BackupService } from "@sca/proto/sca/admin/v1/backups_pb.ts";
import { StatusPanelService } from "@sca/proto/sca/admin/v1/status_panels_pb.ts";
import { CrashReportService } from "@sca/proto/sca/admin/v1/crash_reports_pb.ts";
import { AccessService } from "@sca/proto/sca/identity/v1/access_pb.ts";
import { AccountService, AdminUserService } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { ApiKeyService } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { SsoService } from "@sca/proto/sca/identity/v1/sso_pb.ts";
import { NotificationRuleService } from "@sca/proto/sca/notifier/v1/notification_rules_pb.ts";
import { TeamChatWebhookService } from "@sca/proto/sca/notifier/v1/team_chat_webhooks_pb.ts";
import { NotificationService } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import { ApprovalService } from "@sca/proto/sca/policy/v1/approvals_pb.ts";
import { GatePolicyService } from "@sca/proto/sca/policy/v1/gate_policies_pb.ts";
import { GovernanceService } from "@sca/proto/sca/policy/v1/governance_pb.ts";
import { LicensePolicyService } from "@sca/proto/sca/policy/v1/license_policies_pb.ts";
import { ObligationService } from "@sca/proto/sca/policy/v1/obligations_pb.ts";
import { OrganizationVerdictService } from "@sca/proto/sca/policy/v1/organization_verdicts_pb.ts";
import { FileLicenseService } from "@sca/proto/sca/projects/v1/file_licenses_pb.ts";
import { GovernanceFactsService } from "@sca/proto/sca/projects/v1/governance_facts_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { PortfolioService } from "@sca/proto/sca/projects/v1/portfolio_pb.ts";
import { ProjectAssigneeService } from "@sca/proto/sca/projects/v1/project_assignees_pb.ts";
import { MaliciousWaiverService } from "@sca/proto/sca/projects/v1/malicious_waivers_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { ProjectWebhookService } from "@sca/proto/sca/projects/v1/webhooks_pb.ts";
import { RemediationService } from "@sca/proto/sca/projects/v1/remediation_pb.ts";
import { SourceHostAppService } from "@sca/proto/sca/projects/v1/source_host_apps_pb.ts";
import { PullRequestCommentService } from "@sca/proto/sca/projects/v1/pull_request_comments_pb.ts";
import { SbomExportService } from "@sca/proto/sca/projects/v1/sbom_pb.ts";
import { SbomSigningService } from "@sca/proto/sca/projects/v1/sbom_signing_pb.ts";
import { EnrichmentFeedService } from "@sca/proto/sca/scannerrunner/v1/enrichment_feeds_pb.ts";
import { VulnerabilityFindingService } from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { ScanService } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { createServiceClient } from "@sca/rpc";
import type { ServiceName } from "@sca/runtime/services";

export const SERVICE_CLIENTS = {
  identity: {
    access: AccessService,
    accounts: AccountService,
    adminUsers: AdminUserService,
    directory: DirectoryService,
    apiKeys: ApiKeyService,
    sso: SsoService,
  },
  projects: {
    projects: ProjectService,
    inventory: InventoryService,
    sbom: SbomExportService,
    signing: SbomSigningService,
    findings: VulnerabilityFindingService,
    assignees: ProjectAssigneeService,
    maliciousWaivers: MaliciousWaiverService,
    governance: GovernanceFactsService,
    fileLicenses: FileLicenseService,
    portfolio: PortfolioService,
    webhooks: ProjectWebhookService,
    remediation: RemediationService,
    apps: SourceHostAppService,
    pullRequestComments: PullRequestCommentService,
  },
  "scan-orchestrator": { scans: ScanService },
  "scanner-runner": { feeds: EnrichmentFeedService },
  notifier: {
    notifications: NotificationService,
    rules: NotificationRuleService,
    chatWebhooks: TeamChatWebhookService,
  },
  admin: {
    audit: AuditService,
    trackerCredentials: TrackerCredentialService,
    registryCredentials: RegistryCredentialService,
    backups: BackupService,
    panels: StatusPanelService,
    crashReports: CrashReportService,
  },
  policy: {
    licensePolicies: LicensePolicyService,
    gatePolicies: GatePolicyService,
    approvals: ApprovalService,
    verdicts: OrganizationVerdictService,
    obligations: ObligationService,
    governance: GovernanceService,
  },
} as const satisfies Partial<Record<ServiceName, Record<string, DescService>>>;

type Table = typeof SERVICE_CLIENTS;

/** `clients.identity.directory`: a Connect client of every service in the table. */
export type ServiceClients = {
  readonly [S in keyof Table]: {
    readonly [C in keyof Table[S]]: Table[S][C] extends DescService ? Client<Table[S][C]> : never;
  };
};

/** Clients of every service in the table, each service's at `urlOf(service)`. */
export function createServiceClients(urlOf: (service: ServiceName) => string): ServiceClients {
  const table: Record<string, Record<string, DescService>> = SERVICE_CLIENTS;
  const perService = Object.entries(table).map(([service, connectServices]) => {
    const baseUrl = urlOf(service as ServiceName);
    return [
      service,
      Object.fromEntries(
        Object.entries(connectServices).map(([name, desc]) => [name, createServiceClient(desc, baseUrl)]),
      ),
    ] as const;
  });
  return Object.fromEntries(perService) as ServiceClients;
}
