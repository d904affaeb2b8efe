// Source-host app credentials of a team (the app a host lets the portal act as, to open remediation pull requests):
// listed for the team's members (newest first, paged by the API, revoked ones on request) and registered by its
// team_admin. The private key and the webhook secret are write-only: typed into password-like fields, emptied once
// the API accepted them, never shown back (the API answers only that it holds them). One app's page (below) revokes
// it and lists and links its installations: an installation linked to a project and a repository opts the project in.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { field, filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { canAdminister, useMe } from "../session/me.ts";
import { TeamChoice, useTeams } from "./governance-scope.tsx";

const PAGE_SIZE = 20;
type App = Schemas["SourceHostAppCredential"];
type Installation = Schemas["SourceHostAppInstallation"];

interface AppsSearch {
  team_id?: string;
  revoked?: string;
  page?: number;
}

const when = (at: string | null) => (at ? new Date(at).toLocaleString() : "—");
const held = (yes: boolean) => (yes ? "held" : "none");

export function SourceHostAppsPage() {
  const search: AppsSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const me = useMe();
  const teams = useTeams();
  const teamId = search.team_id ?? teams.data?.[0]?.id;
  const page = search.page ?? 1;
  const query = {
    page,
    page_size: PAGE_SIZE,
    ...(teamId ? { team_id: teamId } : {}),
    ...(search.revoked ? { include_revoked: "true" as const } : {}),
  };
  const apps = useQuery({
    queryKey: ["scm-apps", query],
    queryFn: async () => dataOf(await api.GET("/v1/scm/apps", { params: { query } })),
    enabled: teamId !== undefined,
    placeholderData: (previous) => previous,
  });
  const columns: Columns<App> = [
    {
      id: "app",
      header: "App id",
      cell: ({ row: { original: a } }) => (
        <Link to="/source-hosts/$appId" params={{ appId: a.id }}>
          {a.app_id}
        </Link>
      ),
    },
    { id: "slug", header: "Slug", cell: ({ row }) => row.original.app_slug ?? "—" },
    { id: "key", header: "Private key", cell: ({ row }) => held(row.original.has_private_key) },
    { id: "secret", header: "Webhook secret", cell: ({ row }) => held(row.original.has_webhook_secret) },
    { id: "created", header: "Registered", cell: ({ row }) => when(row.original.created_at) },
    { id: "revoked", header: "Revoked", cell: ({ row }) => when(row.original.revoked_at) },
  ];
  return (
    <main>
      <h1>Source-host apps</h1>
      <ProblemView error={teams.error} />
      <form
        className="filters"
        aria-label="Choose the apps"
        onSubmit={(e) => {
          e.preventDefault();
          void navigate({
            to: "/source-hosts",
            search: { ...filters(new FormData(e.currentTarget), ["team_id", "revoked"]), page: 1 },
          });
        }}
      >
        <TeamChoice teams={teams.data} value={teamId} />
        <label className="inline">
          <input type="checkbox" name="revoked" value="true" defaultChecked={!!search.revoked} />
          Include revoked apps
        </label>
        <button type="submit">Show</button>
      </form>
      {teams.data && !teams.data.length ? <p>You belong to no team.</p> : null}
      <ProblemView error={apps.error} />
      <DataTable label="Apps" columns={columns} rows={apps.data?.items} rowId={(a) => a.id} />
      <Pager
        offset={(page - 1) * PAGE_SIZE}
        limit={PAGE_SIZE}
        total={apps.data?.total ?? 0}
        onOffset={(offset) =>
          void navigate({ to: "/source-hosts", search: { ...search, page: offset / PAGE_SIZE + 1 } })
        }
      />
      {teamId && canAdminister(me.data, teamId) ? <RegisterApp key={teamId} teamId={teamId} /> : null}
    </main>
  );
}

function RegisterApp({ teamId }: { teamId: string }) {
  const queryClient = useQueryClient();
  const register = useMutation({
    mutationFn: async (form: FormData) => {
      const slug = field(form, "app_slug");
      const secret = field(form, "webhook_secret");
      return dataOf(
        await api.POST("/v1/scm/apps", {
          params: { query: { team_id: teamId } },
          body: {
            app_id: field(form, "app_id"),
            private_key: field(form, "private_key"),
            ...(slug ? { app_slug: slug } : {}),
            ...(secret ? { webhook_secret: secret } : {}),
          },
        }),
      );
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["scm-apps"] }),
  });
  return (
    <form
      className="card"
      aria-label="Register an app"
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        register.mutate(new FormData(form), { onSuccess: () => form.reset() });
      }}
    >
      <h2>Register an app</h2>
      <label>
        App id
        <input name="app_id" required maxLength={64} autoComplete="off" />
      </label>
      <label>
        App slug (optional)
        <input name="app_slug" maxLength={255} autoComplete="off" />
      </label>
      <label>
        Private key (RSA, PEM; never shown again)
        <textarea name="private_key" required rows={4} spellCheck={false} autoComplete="off" />
      </label>
      <label>
        Webhook secret (optional; never shown again)
        <input name="webhook_secret" type="password" maxLength={1024} autoComplete="new-password" />
      </label>
      <button type="submit" disabled={register.isPending}>
        Register app
      </button>
      <ProblemView error={register.error} />
      {register.data ? <p role="status">App {register.data.app_id} registered.</p> : null}
    </form>
  );
}

export function SourceHostAppPage() {
  const { appId }: { appId: string } = useParams({ strict: false });
  const me = useMe();
  const queryClient = useQueryClient();
  const path = { params: { path: { app_credential_id: appId } } };
  const app = useQuery({
    queryKey: ["scm-apps", appId],
    queryFn: async () => dataOf(await api.GET("/v1/scm/apps/{app_credential_id}", path)),
  });
  const revoke = useMutation({
    mutationFn: async () => dataOf(await api.DELETE("/v1/scm/apps/{app_credential_id}", path)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["scm-apps"] }),
  });
  const a = app.data;
  if (app.error) return <ProblemView error={app.error} />;
  if (!a) return <p role="status">Loading…</p>;
  const admin = canAdminister(me.data, a.team_id);
  return (
    <main>
      <h1>App {a.app_id}</h1>
      <p>
        <Link to="/source-hosts" search={{ team_id: a.team_id }}>
          Back to the team&apos;s apps
        </Link>
      </p>
      <dl data-testid="app">
        <dt>Slug</dt>
        <dd>{a.app_slug ?? "—"}</dd>
        <dt>Private key</dt>
        <dd>{held(a.has_private_key)}</dd>
        <dt>Webhook secret</dt>
        <dd>{held(a.has_webhook_secret)}</dd>
        <dt>Registered</dt>
        <dd>{when(a.created_at)}</dd>
        <dt>Changed</dt>
        <dd>{when(a.updated_at)}</dd>
        <dt>Revoked</dt>
        <dd>{when(a.revoked_at)}</dd>
      </dl>
      {admin && !a.revoked_at ? (
        <p>
          <button
            type="button"
            className="danger"
            onClick={() => {
              if (window.confirm(`Revoke app ${a.app_id}? Its installations stop opting their projects in.`))
                revoke.mutate();
            }}
          >
            Revoke app
          </button>
        </p>
      ) : null}
      <ProblemView error={revoke.error} />
      <Installations appId={appId} teamId={a.team_id} admin={admin} />
    </main>
  );
}

function Installations({ appId, teamId, admin }: { appId: string; teamId: string; admin: boolean }) {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const path = { app_credential_id: appId };
  const query = { page, page_size: PAGE_SIZE };
  const installations = useQuery({
    queryKey: ["scm-apps", appId, "installations", query],
    queryFn: async () =>
      dataOf(await api.GET("/v1/scm/apps/{app_credential_id}/installations", { params: { path, query } })),
    placeholderData: (previous) => previous,
  });
  // The projects an installation may be linked to: the team's, the first 100 (the API's largest page).
  const projects = useQuery({
    queryKey: ["projects", "of-team", teamId],
    queryFn: async () => dataOf(await api.GET("/v1/projects", { params: { query: { team_id: teamId, size: 100 } } })),
    enabled: admin,
  });
  const link = useMutation({
    mutationFn: async (form: FormData) => {
      const optional = filters(form, ["account_login", "project_id", "repository_full_name"]);
      const body = {
        installation_id: field(form, "installation_id"),
        ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
      };
      return dataOf(await api.POST("/v1/scm/apps/{app_credential_id}/installations", { params: { path }, body }));
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["scm-apps", appId, "installations"] }),
  });
  const projectName = (id: string | null) =>
    id ? (projects.data?.items.find((p) => p.id === id)?.name ?? id) : "— (not linked)";
  const columns: Columns<Installation> = [
    { id: "installation", header: "Installation", cell: ({ row }) => row.original.installation_id },
    { id: "account", header: "Account", cell: ({ row }) => row.original.account_login ?? "—" },
    {
      id: "project",
      header: "Project",
      cell: ({ row: { original: i } }) =>
        i.project_id ? (
          <Link to="/projects/$projectId" params={{ projectId: i.project_id }}>
            {projectName(i.project_id)}
          </Link>
        ) : (
          projectName(null)
        ),
    },
    { id: "repository", header: "Repository", cell: ({ row }) => row.original.repository_full_name ?? "—" },
    { id: "updated", header: "Changed", cell: ({ row }) => when(row.original.updated_at) },
  ];
  return (
    <section aria-labelledby="installations">
      <h2 id="installations">Installations</h2>
      <ProblemView error={installations.error ?? projects.error} />
      <DataTable
        label="Installations"
        columns={columns}
        rows={installations.data?.items}
        rowId={(i) => i.installation_id}
      />
      <Pager
        offset={(page - 1) * PAGE_SIZE}
        limit={PAGE_SIZE}
        total={installations.data?.total ?? 0}
        onOffset={(offset) => setPage(offset / PAGE_SIZE + 1)}
      />
      {admin ? (
        <form
          className="card"
          aria-label="Link an installation"
          onSubmit={(e) => {
            e.preventDefault();
            link.mutate(new FormData(e.currentTarget));
          }}
        >
          <h3>Link an installation</h3>
          <p>
            A project linked to an installation with a repository is opted in to remediation pull requests (and unlinked
            from any other installation).
          </p>
          <label>
            Installation id
            <input name="installation_id" required maxLength={64} autoComplete="off" />
          </label>
          <label>
            Account (optional)
            <input name="account_login" maxLength={255} autoComplete="off" />
          </label>
          <label>
            Project
            <select name="project_id" defaultValue="">
              <option value="">none</option>
              {(projects.data?.items ?? []).map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Repository (owner/name)
            <input name="repository_full_name" minLength={3} maxLength={255} autoComplete="off" />
          </label>
          <button type="submit" disabled={link.isPending}>
            Link installation
          </button>
          <ProblemView error={link.error} />
          {link.data ? <p role="status">Installation {link.data.installation_id} saved.</p> : null}
        </form>
      ) : null}
    </section>
  );
}
