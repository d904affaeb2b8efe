// The app's routes, among them every link the portal sends people: the notifier's deep links, the password-reset
// link (/reset-password?token=) and the OAuth landings (/ and /login?error=). A signed-in route without a session
// tries the refresh cookie first, then goes to /login?next=<the route>.
import { createRootRoute, createRoute, createRouter, Outlet, redirect } from "@tanstack/react-router";
import { CrashPage, reportCrash } from "./crash.tsx";
import { AdminAuditPage } from "./pages/admin-audit.tsx";
import { AdminBackupsPage } from "./pages/admin-backups.tsx";
import { AdminCredentialsPage } from "./pages/admin-credentials.tsx";
import { AdminTeamPage } from "./pages/admin-team.tsx";
import { AdminTeamsPage } from "./pages/admin-teams.tsx";
import { AdminHealthPage } from "./pages/admin-health.tsx";
import { AdminScansPage } from "./pages/admin-scans.tsx";
import { AdminUsersPage } from "./pages/admin-users.tsx";
import { AboutPage } from "./pages/about.tsx";
import { ApiKeysPage } from "./pages/api-keys.tsx";
import { ApprovalPage, ApprovalsPage } from "./pages/approvals.tsx";
import { DashboardPage } from "./pages/dashboard.tsx";
import { LicensesPage } from "./pages/licenses.tsx";
import { NoticePage } from "./pages/notice.tsx";
import { OrganizationVerdictsPage } from "./pages/organization-verdicts.tsx";
import { PoliciesPage } from "./pages/policies.tsx";
import { NotificationsPage } from "./pages/notifications.tsx";
import { PackageLookupPage } from "./pages/package-lookup.tsx";
import { IdentitiesPage } from "./pages/identities.tsx";
import { NotificationSettingsPage } from "./pages/notification-settings.tsx";
import { PortfolioSearchPage } from "./pages/portfolio-search.tsx";
import { ComponentPage } from "./pages/component.tsx";
import { ComponentsPage } from "./pages/components.tsx";
import { DependencyGraphPage } from "./pages/dependency-graph.tsx";
import { ForgotPasswordPage, ResetPasswordPage } from "./pages/password-reset.tsx";
import { ProjectPage } from "./pages/project.tsx";
import { ProjectRemediationPage } from "./pages/project-remediation.tsx";
import { ProjectWebhookPage } from "./pages/project-webhook.tsx";
import { ProjectsPage } from "./pages/projects.tsx";
import { ReleaseDiffPage } from "./pages/release-diff.tsx";
import { ScanPage } from "./pages/scan.tsx";
import { ScanHistoryPage } from "./pages/scan-history.tsx";
import { SecondFactorPage } from "./pages/second-factor.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import { SourceHostAppPage, SourceHostAppsPage } from "./pages/source-host-apps.tsx";
import { VulnerabilitiesPage } from "./pages/vulnerabilities.tsx";
import { isSignedIn, refresh } from "./session/session.ts";
import { Shell } from "./shell.tsx";

const root = createRootRoute({ component: Outlet });

const signIn = createRoute({ getParentRoute: () => root, path: "/login", component: SignInPage });
const forgot = createRoute({ getParentRoute: () => root, path: "/forgot-password", component: ForgotPasswordPage });
const reset = createRoute({ getParentRoute: () => root, path: "/reset-password", component: ResetPasswordPage });

const signedIn = createRoute({
  getParentRoute: () => root,
  id: "signed-in",
  component: Shell,
  beforeLoad: async ({ location }) => {
    if (isSignedIn() || (await refresh())) return;
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- TanStack Router redirects by throwing its redirect
    throw redirect({ to: "/login", search: { next: location.href } });
  },
});
const home = createRoute({
  getParentRoute: () => signedIn,
  path: "/",
  beforeLoad: () => {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- TanStack Router redirects by throwing its redirect
    throw redirect({ to: "/projects" });
  },
});
const projects = createRoute({ getParentRoute: () => signedIn, path: "/projects", component: ProjectsPage });
const project = createRoute({ getParentRoute: () => signedIn, path: "/projects/$projectId", component: ProjectPage });
const scan = createRoute({
  getParentRoute: () => signedIn,
  path: "/projects/$projectId/scans/$scanId",
  component: ScanPage,
});
const components = createRoute({
  getParentRoute: () => signedIn,
  path: "/projects/$projectId/components",
  component: ComponentsPage,
});
const vulnerabilities = createRoute({
  getParentRoute: () => signedIn,
  path: "/projects/$projectId/vulnerabilities",
  component: VulnerabilitiesPage,
});
const component = createRoute({
  getParentRoute: () => signedIn,
  path: "/projects/$projectId/components/$componentId",
  component: ComponentPage,
});
const graph = createRoute({
  getParentRoute: () => signedIn,
  path: "/projects/$projectId/graph",
  component: DependencyGraphPage,
});
const releaseDiff = createRoute({
  getParentRoute: () => signedIn,
  path: "/projects/$projectId/releases/diff",
  component: ReleaseDiffPage,
});
const scanHistory = createRoute({
  getParentRoute: () => signedIn,
  path: "/projects/$projectId/scans",
  component: ScanHistoryPage,
});
const secondFactor = createRoute({
  getParentRoute: () => signedIn,
  path: "/account/second-factor",
  component: SecondFactorPage,
});

const licenses = createRoute({
  getParentRoute: () => signedIn,
  path: "/projects/$projectId/licenses",
  component: LicensesPage,
});
const dashboard = createRoute({ getParentRoute: () => signedIn, path: "/dashboard", component: DashboardPage });
const notifications = createRoute({
  getParentRoute: () => signedIn,
  path: "/notifications",
  component: NotificationsPage,
});
const apiKeys = createRoute({ getParentRoute: () => signedIn, path: "/account/api-keys", component: ApiKeysPage });
const packageLookup = createRoute({ getParentRoute: () => signedIn, path: "/packages", component: PackageLookupPage });
const notificationSettings = createRoute({
  getParentRoute: () => signedIn,
  path: "/account/notifications",
  component: NotificationSettingsPage,
});
const identities = createRoute({
  getParentRoute: () => signedIn,
  path: "/account/identities",
  component: IdentitiesPage,
});
const portfolioSearch = createRoute({
  getParentRoute: () => signedIn,
  path: "/portfolio",
  component: PortfolioSearchPage,
});
const about = createRoute({ getParentRoute: () => signedIn, path: "/about", component: AboutPage });
const adminHealth = createRoute({ getParentRoute: () => signedIn, path: "/admin/health", component: AdminHealthPage });
const adminUsers = createRoute({ getParentRoute: () => signedIn, path: "/admin/users", component: AdminUsersPage });
const adminScans = createRoute({ getParentRoute: () => signedIn, path: "/admin/scans", component: AdminScansPage });
const adminAudit = createRoute({ getParentRoute: () => signedIn, path: "/admin/audit", component: AdminAuditPage });
const adminTeams = createRoute({ getParentRoute: () => signedIn, path: "/admin/teams", component: AdminTeamsPage });
const adminTeam = createRoute({
  getParentRoute: () => signedIn,
  path: "/admin/teams/$teamId",
  component: AdminTeamPage,
});
const adminBackups = createRoute({
  getParentRoute: () => signedIn,
  path: "/admin/backups",
  component: AdminBackupsPage,
});
const adminCredentials = createRoute({
  getParentRoute: () => signedIn,
  path: "/admin/credentials",
  component: AdminCredentialsPage,
});

const notice = createRoute({
  getParentRoute: () => signedIn,
  path: "/projects/$projectId/notice",
  component: NoticePage,
});
const approvals = createRoute({ getParentRoute: () => signedIn, path: "/approvals", component: ApprovalsPage });
const approval = createRoute({
  getParentRoute: () => signedIn,
  path: "/approvals/$approvalId",
  component: ApprovalPage,
});
const verdicts = createRoute({
  getParentRoute: () => signedIn,
  path: "/verdicts",
  component: OrganizationVerdictsPage,
});
const projectWebhook = createRoute({
  getParentRoute: () => signedIn,
  path: "/projects/$projectId/webhook",
  component: ProjectWebhookPage,
});
const projectRemediation = createRoute({
  getParentRoute: () => signedIn,
  path: "/projects/$projectId/remediation",
  component: ProjectRemediationPage,
});
const sourceHostApps = createRoute({
  getParentRoute: () => signedIn,
  path: "/source-hosts",
  component: SourceHostAppsPage,
});
const sourceHostApp = createRoute({
  getParentRoute: () => signedIn,
  path: "/source-hosts/$appId",
  component: SourceHostAppPage,
});
const policies = createRoute({ getParentRoute: () => signedIn, path: "/policies", component: PoliciesPage });

export const router = createRouter({
  routeTree: root.addChildren([
    signIn,
    forgot,
    reset,
    signedIn.addChildren([
      home,
      projects,
      project,
      scan,
      scanHistory,
      components,
      component,
      vulnerabilities,
      licenses,
      graph,
      releaseDiff,
      secondFactor,
      dashboard,
      notifications,
      apiKeys,
      packageLookup,
      notificationSettings,
      identities,
      portfolioSearch,
      about,
      adminHealth,
      adminUsers,
      adminScans,
      adminAudit,
      notice,
      approvals,
      approval,
      verdicts,
      policies,
      adminTeams,
      adminTeam,
      adminBackups,
      adminCredentials,
      projectWebhook,
      projectRemediation,
      sourceHostApps,
      sourceHostApp,
    ]),
  ]),
  defaultPreload: "intent",
  defaultErrorComponent: CrashPage,
  defaultOnCatch: (error, info) => reportCrash(error, info.componentStack),
});

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
