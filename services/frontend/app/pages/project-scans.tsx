// On a project's page: upload an SBOM and start its scan (then follow it live), and the recent scans.
import { useMutation } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useRef } from "react";
import type { Schemas } from "@sca/api-client";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

export function SbomScan({ projectId }: { projectId: string }) {
  const navigate = useNavigate();
  const input = useRef<HTMLInputElement>(null);
  const start = useMutation({
    mutationFn: async (file: File) => {
      const upload = dataOf(
        await api.POST("/v1/projects/{id}/sbom-uploads", {
          params: { path: { id: projectId } },
          body: { file: file.name },
          // The typed body names the field; the request is the file itself, as multipart/form-data.
          bodySerializer: () => {
            const form = new FormData();
            form.append("file", file);
            return form;
          },
        }),
      );
      return dataOf(
        await api.POST("/v1/projects/{id}/scans", {
          params: { path: { id: projectId } },
          body: { kind: "sbom", ref: "", metadata: {}, sbom_upload_id: upload.upload_id },
        }),
      );
    },
    onSuccess: (scan) =>
      void navigate({ to: "/projects/$projectId/scans/$scanId", params: { projectId, scanId: scan.id } }),
  });
  return (
    <form
      className="card"
      aria-label="Scan an SBOM"
      onSubmit={(e) => {
        e.preventDefault();
        const file = input.current?.files?.[0];
        if (file) start.mutate(file);
      }}
    >
      <h2>Scan an SBOM</h2>
      <ProblemView error={start.error} />
      <label>
        CycloneDX or SPDX document
        <input ref={input} name="file" type="file" accept=".json,.xml,.spdx,.txt" required />
      </label>
      <button type="submit" disabled={start.isPending}>
        Upload and scan
      </button>
    </form>
  );
}

export function RecentScans({
  projectId,
  scans,
}: {
  projectId: string;
  scans: Schemas["ProjectOverview"]["recent_scans"];
}) {
  if (!scans.length) return <p>No scans yet.</p>;
  return (
    <table aria-label="Recent scans">
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Kind</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        {scans.map((s) => (
          <tr key={s.id}>
            <td>
              <Link to="/projects/$projectId/scans/$scanId" params={{ projectId, scanId: s.id }}>
                {new Date(s.created_at).toLocaleString()}
              </Link>
            </td>
            <td>{s.kind}</td>
            <td>{s.status}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
