// The notifier's /admin/health link: the health panel (each service and backing part, probed now), the disk panel
// and the advisory feeds' state. super_admin only: the API answers 404 to anyone else, and the page shows that.
import { useQuery } from "@tanstack/react-query";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "—");
const mib = (bytes: number | null | undefined) =>
  bytes === null || bytes === undefined ? "—" : `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

const healthColumns: Columns<Schemas["HealthComponent"]> = [
  { id: "name", header: "Part", cell: ({ row }) => row.original.name },
  { id: "kind", header: "Kind", cell: ({ row }) => row.original.kind },
  {
    id: "state",
    header: "State",
    cell: ({ row }) => <span data-state={row.original.state}>{row.original.state}</span>,
  },
  {
    id: "latency",
    header: "Latency",
    cell: ({ row }) => (row.original.latency_ms === null ? "—" : `${row.original.latency_ms} ms`),
  },
  { id: "version", header: "Version", cell: ({ row }) => row.original.version ?? "—" },
  {
    id: "error",
    header: "Last error",
    cell: ({ row }) =>
      row.original.last_error ? `${row.original.last_error} (${when(row.original.last_error_at)})` : "—",
  },
];

const diskColumns: Columns<Schemas["DiskItem"]> = [
  { id: "name", header: "Volume", cell: ({ row }) => row.original.name },
  { id: "location", header: "Location", cell: ({ row }) => row.original.location ?? "—" },
  { id: "state", header: "State", cell: ({ row }) => row.original.state },
  { id: "used", header: "Used", cell: ({ row }) => mib(row.original.used_bytes) },
  { id: "free", header: "Free", cell: ({ row }) => mib(row.original.free_bytes) },
  { id: "total", header: "Total", cell: ({ row }) => mib(row.original.total_bytes) },
  { id: "note", header: "Note", cell: ({ row }) => row.original.note },
];

interface Feed {
  name: string;
  result: string;
  attempted: string | null | undefined;
  succeeded: string | null | undefined;
  detail: string;
}

const feedColumns: Columns<Feed> = [
  { id: "name", header: "Feed", cell: ({ row }) => row.original.name },
  { id: "result", header: "Last result", cell: ({ row }) => row.original.result },
  { id: "attempted", header: "Last attempt", cell: ({ row }) => when(row.original.attempted) },
  { id: "succeeded", header: "Last success", cell: ({ row }) => when(row.original.succeeded) },
  { id: "detail", header: "Detail", cell: ({ row }) => row.original.detail },
];

export function AdminHealthPage() {
  const health = useQuery({
    queryKey: ["admin", "health"],
    queryFn: async () => dataOf(await api.GET("/v1/admin/health")),
  });
  const disk = useQuery({ queryKey: ["admin", "disk"], queryFn: async () => dataOf(await api.GET("/v1/admin/disk")) });
  const osv = useQuery({
    queryKey: ["admin", "osv"],
    queryFn: async () => dataOf(await api.GET("/v1/admin/osv/status")),
  });
  const kev = useQuery({
    queryKey: ["admin", "kev"],
    queryFn: async () => dataOf(await api.GET("/v1/admin/kev/status")),
  });
  // A caller who is not a super_admin gets the API's 404 for every panel: one problem says it.
  if (health.error) return <ProblemView error={health.error} />;
  const feeds: Feed[] = [];
  if (osv.data)
    feeds.push({
      name: "Advisories (OSV)",
      result: osv.data.last_result,
      attempted: osv.data.last_attempt_at,
      succeeded: osv.data.last_succeeded_at,
      detail: osv.data.failure ?? `${osv.data.advisory_count} advisories, version ${osv.data.database_version ?? "—"}`,
    });
  if (kev.data)
    feeds.push({
      name: "Known exploited (KEV)",
      result: kev.data.enabled ? kev.data.last_result : "disabled",
      attempted: kev.data.last_attempt_at,
      succeeded: kev.data.last_synced_at,
      detail:
        kev.data.skipped_reason ?? `${kev.data.feed_count} listed, ${kev.data.kev_flagged_total} findings flagged`,
    });
  return (
    <main>
      <h1>Health</h1>
      <ProblemView error={disk.error ?? osv.error ?? kev.error} />
      <section aria-labelledby="health-parts">
        <h2 id="health-parts">Services and backing parts</h2>
        {health.data ? (
          <>
            <p className="muted">
              Probed {when(health.data.updated_at)}. Audit entries older than{" "}
              {health.data.audit_retention.retention_days} days:{" "}
              {health.data.audit_retention.entries_past_retention ?? "unknown"} (kept: the log is append-only).
            </p>
            <DataTable label="Health" columns={healthColumns} rows={health.data.components} rowId={(c) => c.name} />
          </>
        ) : (
          <p role="status">Loading…</p>
        )}
      </section>
      <section aria-labelledby="health-disk">
        <h2 id="health-disk">Disk</h2>
        <DataTable label="Disk" columns={diskColumns} rows={disk.data?.items} rowId={(d) => d.name} />
      </section>
      <section aria-labelledby="health-feeds">
        <h2 id="health-feeds">Feeds</h2>
        <DataTable label="Feeds" columns={feedColumns} rows={feeds} rowId={(f) => f.name} />
      </section>
    </main>
  );
}
