// On a project's page: upload an SBOM and start its scan (then follow it live).
import { useMutation } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useRef } from "react";
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
