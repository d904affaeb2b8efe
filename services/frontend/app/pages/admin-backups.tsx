// The super_admin's backups: the list (the API answers them all, newest first: a deployment keeps a handful), a
// manual backup followed to its end, each downloaded as its tar.gz, and a restore of an uploaded archive. A restore
// replaces every service's data, so it asks for the API's confirmation word typed out and sends it as
// X-Confirm-Restore: the API is the one judge of it (a wrong word is its 400, and nothing is read or changed). A backup
// is deleted after a confirmation; the API protects automatic ones (409 backup_protected, shown as its problem).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { download } from "../download.ts";
import { field } from "../form.ts";
import { dataOf, ProblemError } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api, bearer } from "../session/session.ts";

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const FINISHED = new Set(["succeeded", "failed"]);

/** A backup or restore task, read again every second until it has finished. */
function TaskProgress({ taskId, onFinished }: { taskId: string; onFinished: () => void }) {
  const task = useQuery({
    queryKey: ["admin", "backup-tasks", taskId],
    queryFn: async () => {
      const t = dataOf(await api.GET("/v1/admin/backup-tasks/{task_id}", { params: { path: { task_id: taskId } } }));
      if (FINISHED.has(t.state)) onFinished();
      return t;
    },
    refetchInterval: (q) => (q.state.data && FINISHED.has(q.state.data.state) ? false : 1000),
  });
  const t = task.data;
  if (task.error) return <ProblemView error={task.error} />;
  if (!t) return <p role="status">Starting…</p>;
  return (
    <p role="status" data-state={t.state}>
      {t.kind === "backup" ? "Backup" : "Restore"} {t.backup_name ?? ""}: {t.state}
      {FINISHED.has(t.state) ? "" : ` (${t.step}, ${t.percent} %)`}
      {t.error ? ` — ${t.error}` : ""}
    </p>
  );
}

/** The restore's upload: multipart with the typed confirmation as X-Confirm-Restore (openapi-fetch sets no header). */
async function restore(form: FormData): Promise<Schemas["RestoreStarted"]> {
  const archive = form.get("archive");
  const body = new FormData();
  if (archive instanceof File) body.append("archive", archive);
  const token = bearer();
  const res = await fetch("/api/v1/admin/backup/restore", {
    method: "POST",
    headers: {
      "X-Confirm-Restore": field(form, "confirmation"),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body,
  });
  const answer: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new ProblemError(res.status, answer, res.headers.get("X-Request-ID"));
  return answer as Schemas["RestoreStarted"];
}

export function AdminBackupsPage() {
  const queryClient = useQueryClient();
  const [task, setTask] = useState<string>();
  const [downloadError, setDownloadError] = useState<unknown>();
  const backups = useQuery({
    queryKey: ["admin", "backups"],
    queryFn: async () => dataOf(await api.GET("/v1/admin/backup")),
  });
  const listAgain = () => void queryClient.invalidateQueries({ queryKey: ["admin", "backups"] });
  const create = useMutation({
    mutationFn: async () => dataOf(await api.POST("/v1/admin/backup")),
    onSuccess: (started) => setTask(started.task_id),
  });
  const start = useMutation({ mutationFn: restore, onSuccess: (started) => setTask(started.task_id) });
  const remove = useMutation({
    mutationFn: async (name: string) =>
      dataOf(await api.DELETE("/v1/admin/backup/{name}", { params: { path: { name } } })),
    onSuccess: listAgain,
  });
  const columns: Columns<Schemas["Backup"]> = [
    { id: "name", header: "Backup", cell: ({ row }) => row.original.name },
    { id: "kind", header: "Kind", cell: ({ row }) => row.original.kind },
    { id: "created", header: "Taken", cell: ({ row }) => new Date(row.original.created_at).toLocaleString() },
    { id: "size", header: "Size", cell: ({ row }) => mib(row.original.size_bytes) },
    { id: "objects", header: "Stored files", cell: ({ row }) => row.original.object_count },
    { id: "version", header: "Portal version", cell: ({ row }) => row.original.portal_version },
    {
      id: "actions",
      header: "Actions",
      cell: ({ row: { original: b } }) => (
        <>
          <button
            type="button"
            onClick={() => {
              setDownloadError(undefined);
              download(`/v1/admin/backup/${b.name}/download`, `${b.name}.tar.gz`).catch(setDownloadError);
            }}
          >
            Download {b.name}
          </button>{" "}
          <button
            type="button"
            className="danger"
            onClick={() => {
              if (window.confirm(`Delete ${b.name}? It cannot be restored from afterwards.`)) remove.mutate(b.name);
            }}
          >
            Delete {b.name}
          </button>
        </>
      ),
    },
  ];
  if (backups.error && !backups.data) return <ProblemView error={backups.error} />;
  return (
    <main>
      <h1>Backups</h1>
      <p>
        <button type="button" onClick={() => create.mutate()} disabled={create.isPending}>
          Take a backup
        </button>
      </p>
      {task ? <TaskProgress key={task} taskId={task} onFinished={listAgain} /> : null}
      <ProblemView error={backups.error ?? create.error ?? remove.error ?? downloadError} />
      <DataTable label="Backups" columns={columns} rows={backups.data?.items} rowId={(b) => b.name} />
      <form
        className="card"
        aria-label="Restore a backup"
        onSubmit={(e) => {
          e.preventDefault();
          start.mutate(new FormData(e.currentTarget));
        }}
      >
        <h2>Restore a backup</h2>
        <p>
          A restore replaces every service&apos;s data and stored files with the backup&apos;s, and rewinds the audit
          log to it. Whatever happened since the backup is lost. A restore that fails leaves the portal as it was.
        </p>
        <label>
          Archive (a downloaded backup, .tar.gz)
          <input name="archive" type="file" accept=".tar.gz,.tgz,application/gzip" required />
        </label>
        <label>
          <span>
            Type <strong>yes</strong> to replace the portal&apos;s data
          </span>
          <input name="confirmation" autoComplete="off" required />
        </label>
        <button type="submit" className="danger" disabled={start.isPending}>
          Restore
        </button>
        <ProblemView error={start.error} />
      </form>
    </main>
  );
}
