// A project's VEX: the triage of its findings downloaded as OpenVEX or CycloneDX VEX (any member), and a VEX document
// imported (team_admin, as the API allows): the report says what matched, what was updated, what waits for a second
// person, and why a statement matched nothing.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { download } from "../download.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

export function VexExport({ projectId }: { projectId: string }) {
  const [error, setError] = useState<unknown>(null);
  const get = (format: "openvex" | "cyclonedx", name: string) => {
    setError(null);
    download(`/v1/projects/${projectId}/vex?format=${format}`, name).catch(setError);
  };
  return (
    <>
      <button type="button" onClick={() => get("openvex", "vex.openvex.json")}>
        Download OpenVEX
      </button>
      <button type="button" onClick={() => get("cyclonedx", "vex.cdx.json")}>
        Download CycloneDX VEX
      </button>
      <ProblemView error={error} />
    </>
  );
}

export function VexImport({ projectId }: { projectId: string }) {
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const importing = useMutation({
    mutationFn: async (file: File) =>
      dataOf(
        await api.POST("/v1/projects/{id}/vex/import", {
          params: { path: { id: projectId } },
          body: { file: file.name },
          bodySerializer: () => {
            const form = new FormData();
            form.append("file", file);
            return form;
          },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["project", projectId] }),
  });
  const report = importing.data;
  return (
    <form
      className="card"
      aria-label="Import VEX"
      onSubmit={(e) => {
        e.preventDefault();
        const file = input.current?.files?.[0];
        if (file) importing.mutate(file);
      }}
    >
      <h2>Import VEX</h2>
      <ProblemView error={importing.error} />
      <label>
        OpenVEX or CycloneDX VEX document
        <input ref={input} type="file" accept=".json" required />
      </label>
      <button type="submit" disabled={importing.isPending}>
        Import
      </button>
      {report ? (
        <div role="status" data-testid="vex-report">
          <p>
            {report.format}: {report.statements} statements, {report.findings_updated} findings updated,{" "}
            {report.findings_pending_confirmation} awaiting confirmation, {report.unmatched.length} statements matched
            nothing.
          </p>
          {report.unmatched.length ? (
            <ul aria-label="Unmatched statements">
              {report.unmatched.slice(0, 50).map((u, i) => (
                <li key={i}>
                  {u.vulnerability} · {u.product ?? "no product"}: {u.reason}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}
