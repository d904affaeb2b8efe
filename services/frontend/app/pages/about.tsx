// About the portal: its version, commit and build time, the database and advisory database versions, and the license
// notice of everything it ships (each notice's text downloaded on request).
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { download } from "../download.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

type Notice = Schemas["About"]["notices"][number];

export function AboutPage() {
  const about = useQuery({ queryKey: ["about"], queryFn: async () => dataOf(await api.GET("/v1/about")) });
  const [noticeError, setNoticeError] = useState<unknown>(null);
  const columns: Columns<Notice> = [
    { id: "name", header: "Package or tool", cell: ({ row }) => `${row.original.name} ${row.original.version}` },
    { id: "kind", header: "Kind", cell: ({ row }) => row.original.kind },
    { id: "license", header: "License", cell: ({ row }) => row.original.license },
    {
      id: "text",
      header: "Notice",
      cell: ({ row: { original: n } }) => (
        <button
          type="button"
          className="link"
          onClick={() => {
            setNoticeError(null);
            download(`/v1/about/notices/${encodeURIComponent(n.id)}`, `${n.name}-${n.version}.txt`).catch(
              setNoticeError,
            );
          }}
        >
          Notice of {n.name}
        </button>
      ),
    },
  ];
  if (about.error) return <ProblemView error={about.error} />;
  const a = about.data;
  if (!a) return <p role="status">Loading…</p>;
  return (
    <main>
      <h1>About</h1>
      <dl className="facts">
        <dt>Version</dt>
        <dd>{a.version}</dd>
        <dt>Commit</dt>
        <dd>
          <code>{a.commit}</code>
        </dd>
        <dt>Built</dt>
        <dd>{a.built_at}</dd>
        <dt>PostgreSQL</dt>
        <dd>{a.database_version ?? "not answering"}</dd>
        <dt>Advisory database</dt>
        <dd>
          {a.advisory_database_version ?? "not answering"}
          {a.advisories_imported_at ? `, imported ${new Date(a.advisories_imported_at).toLocaleString()}` : ""}
        </dd>
      </dl>
      <h2>Notices ({a.total})</h2>
      <ProblemView error={noticeError} />
      <DataTable label="Notices" columns={columns} rows={a.notices} rowId={(n) => n.id} />
    </main>
  );
}
