// API keys: the caller's own (and those of the teams it administers; every key for a super_admin), paged by the API,
// each revocable; a new key's secret is shown once. The scopes offered are the ones the caller may create (the API
// says who: a project key by a developer of its team, a team key by the team's administrator, an organization key by
// a super_admin); a caller who may create none sees no form.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { field } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { canAdminister, canWrite, useMe } from "../session/me.ts";

const PAGE_SIZE = 20;
type Key = Schemas["ApiKey"];
type Scope = "project" | "team" | "org";

export function ApiKeysPage() {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [revoked, setRevoked] = useState(false);
  const query = { page, page_size: PAGE_SIZE, ...(revoked ? { include_revoked: "true" as const } : {}) };
  const keys = useQuery({
    queryKey: ["api-keys", query],
    queryFn: async () => dataOf(await api.GET("/v1/api-keys", { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => dataOf(await api.DELETE("/v1/api-keys/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["api-keys"] }),
  });
  const narrow = useMutation({
    mutationFn: async (id: string) =>
      dataOf(
        await api.POST("/v1/api-keys/{id}/narrow", {
          params: { path: { id } },
          body: { permission_breadth: "read_only" },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["api-keys"] }),
  });
  const columns: Columns<Key> = [
    { id: "name", header: "Name", cell: ({ row }) => row.original.name },
    { id: "prefix", header: "Prefix", cell: ({ row }) => <code>{row.original.key_prefix}</code> },
    { id: "scope", header: "Scope", cell: ({ row }) => row.original.scope },
    {
      id: "breadth",
      header: "Permissions",
      cell: ({ row: { original: k } }) =>
        k.permission_breadth === "read_write" && !k.revoked_at ? (
          <>
            read_write{" "}
            <button
              type="button"
              aria-label={`Make ${k.name} read only`}
              onClick={() => {
                if (window.confirm(`Make ${k.name} read only? It cannot be widened again.`)) narrow.mutate(k.id);
              }}
            >
              Make read only
            </button>
          </>
        ) : (
          k.permission_breadth
        ),
    },
    {
      id: "expires",
      header: "Expires",
      cell: ({ row }) => (row.original.expires_at ? new Date(row.original.expires_at).toLocaleDateString() : "never"),
    },
    {
      id: "used",
      header: "Last used",
      cell: ({ row }) => (row.original.last_used_at ? new Date(row.original.last_used_at).toLocaleString() : "never"),
    },
    {
      id: "revoke",
      header: "Revoke",
      cell: ({ row: { original: k } }) =>
        k.revoked_at ? (
          `revoked ${new Date(k.revoked_at).toLocaleDateString()}`
        ) : (
          <button
            type="button"
            className="danger"
            aria-label={`Revoke ${k.name}`}
            onClick={() => {
              if (window.confirm(`Revoke ${k.name}? Whatever uses it stops working.`)) revoke.mutate(k.id);
            }}
          >
            Revoke
          </button>
        ),
    },
  ];
  const total = keys.data?.total ?? 0;
  return (
    <main>
      <h1>API keys</h1>
      <CreateApiKey />
      <HashStats />
      <h2>Keys</h2>
      <label className="inline">
        <input type="checkbox" checked={revoked} onChange={(e) => setRevoked(e.target.checked)} />
        Include revoked keys
      </label>
      <ProblemView error={keys.error ?? revoke.error ?? narrow.error} />
      <DataTable label="API keys" columns={columns} rows={keys.data?.items} rowId={(k) => k.id} />
      <Pager
        offset={(page - 1) * PAGE_SIZE}
        limit={PAGE_SIZE}
        total={total}
        onOffset={(offset) => setPage(offset / PAGE_SIZE + 1)}
      />
    </main>
  );
}

/** For a super_admin: how the active keys' hashes are stored (HMAC-SHA256, or the legacy bcrypt). */
function HashStats() {
  const me = useMe();
  const stats = useQuery({
    queryKey: ["api-keys", "hash-stats"],
    queryFn: async () => dataOf(await api.GET("/v1/admin/api-keys/hash-stats")),
    enabled: !!me.data?.is_superuser,
  });
  if (!me.data?.is_superuser) return null;
  const s = stats.data;
  return (
    <section aria-labelledby="hash-stats" className="card">
      <h2 id="hash-stats">Key hashes</h2>
      <ProblemView error={stats.error} />
      {s ? (
        <dl data-testid="hash-stats">
          <dt>Active keys</dt>
          <dd>{s.active_total}</dd>
          <dt>HMAC-SHA256</dt>
          <dd>{s.hmac_sha256_count}</dd>
          <dt>Legacy bcrypt</dt>
          <dd>{s.legacy_bcrypt_count}</dd>
        </dl>
      ) : null}
    </section>
  );
}

function CreateApiKey() {
  const me = useMe();
  const queryClient = useQueryClient();
  const [scope, setScope] = useState<Scope>("project");
  // The projects a project key may name: the first 100 the caller sees, those of teams where it writes.
  const projects = useQuery({
    queryKey: ["projects", "for-keys"],
    queryFn: async () => dataOf(await api.GET("/v1/projects", { params: { query: { size: 100 } } })),
  });
  const writable = (projects.data?.items ?? []).filter((p) => canWrite(me.data, p.team_id));
  const administered = (me.data?.memberships ?? []).filter((m) => canAdminister(me.data, m.team_id));
  const scopes: Scope[] = [
    ...(writable.length ? (["project"] as const) : []),
    ...(administered.length ? (["team"] as const) : []),
    ...(me.data?.is_superuser ? (["org"] as const) : []),
  ];
  const create = useMutation({
    mutationFn: async (form: FormData) => {
      const common = {
        name: field(form, "name"),
        permission_breadth: field(form, "permission_breadth") === "read_write" ? "read_write" : "read_only",
        expires_in_days: field(form, "expires_in_days") ? Number(field(form, "expires_in_days")) : null,
      } as const;
      const chosen = scopes.includes(scope) ? scope : scopes[0];
      const project = writable.find((p) => p.id === field(form, "project_id"));
      const body =
        chosen === "project" && project
          ? { ...common, scope: "project" as const, team_id: project.team_id, project_id: project.id }
          : chosen === "team"
            ? { ...common, scope: "team" as const, team_id: field(form, "team_id") }
            : { ...common, scope: "org" as const };
      return dataOf(await api.POST("/v1/api-keys", { body }));
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["api-keys"] }),
  });
  if (!scopes.length) return null;
  const chosen = scopes.includes(scope) ? scope : scopes[0]!;
  return (
    <form
      className="card"
      aria-label="New API key"
      onSubmit={(e: FormEvent<HTMLFormElement>) => {
        e.preventDefault();
        create.mutate(new FormData(e.currentTarget));
      }}
    >
      <h2>New API key</h2>
      <ProblemView error={create.error} />
      {create.data ? (
        <div role="status" className="card">
          <p>
            The key <strong>{create.data.name}</strong>, shown this once (the portal keeps only its hash):
          </p>
          <code data-testid="raw-key">{create.data.raw_key}</code>
        </div>
      ) : null}
      <label>
        Name
        <input name="name" required maxLength={100} />
      </label>
      <label>
        Scope
        <select value={chosen} onChange={(e) => setScope(e.target.value as Scope)}>
          {scopes.map((s) => (
            <option key={s} value={s}>
              {s === "org" ? "organization" : s}
            </option>
          ))}
        </select>
      </label>
      {chosen === "project" ? (
        <label>
          Project
          <select name="project_id" required>
            {writable.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {chosen === "team" ? (
        <label>
          Team
          <select name="team_id" required>
            {administered.map((t) => (
              <option key={t.team_id} value={t.team_id}>
                {t.team_name}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label>
        Permissions
        <select name="permission_breadth" defaultValue="read_only">
          <option value="read_only">read only</option>
          <option value="read_write">read and write</option>
        </select>
      </label>
      <label>
        Expires after (days; empty: never)
        <input name="expires_in_days" type="number" min={1} max={1825} />
      </label>
      <button type="submit" disabled={create.isPending}>
        Create key
      </button>
    </form>
  );
}
