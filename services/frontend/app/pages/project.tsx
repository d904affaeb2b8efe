// A project's page: its overview scores, gate result and recent scans; links to its components and findings; the
// SBOM download and the signed bundle with its VERIFY.md; and what its writers may change (name, description) or do
// (archive, scan an SBOM).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useParams } from "@tanstack/react-router";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { FINDING_SEVERITIES } from "@sca/vocabulary";
import { download } from "../download.ts";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { canAdminister, canWrite, useMe } from "../session/me.ts";
import { SignedSbom } from "./signed-sbom.tsx";
import { Chart } from "../chart.tsx";
import { Score } from "../score.tsx";
import { GatePolicyInEffect } from "./gate-policy.tsx";
import { StartScan } from "./project-scans.tsx";
import { ScanTable } from "./scan-history.tsx";

const SEVERITY_ORDER = [...FINDING_SEVERITIES];
/** The overview's license_distribution keys (ProjectOverview), worst last. */
const LICENSE_ORDER = ["allowed", "conditional", "forbidden", "uncategorized"];

export function ProjectPage() {
  const { projectId }: { projectId: string } = useParams({ strict: false });
  const me = useMe();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const path = { params: { path: { id: projectId } } };
  const project = useQuery({
    queryKey: ["project", projectId],
    queryFn: async () => dataOf(await api.GET("/v1/projects/{id}", path)),
  });
  const overview = useQuery({
    queryKey: ["project", projectId, "overview"],
    queryFn: async () => dataOf(await api.GET("/v1/projects/{id}/overview", path)),
  });
  const gate = useQuery({
    queryKey: ["project", projectId, "gate"],
    queryFn: async () => dataOf(await api.GET("/v1/projects/{id}/gate-result", path)),
  });
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const edit = useMutation({
    mutationFn: async (form: FormData) =>
      dataOf(
        await api.PATCH("/v1/projects/{id}", {
          ...path,
          body: {
            name: field(form, "name"),
            description: field(form, "description"),
            clear_git_credential: false,
          },
        }),
      ),
    onSuccess: async () => {
      setEditing(false);
      await queryClient.invalidateQueries({ queryKey: ["project", projectId] });
    },
  });
  const archive = useMutation({
    mutationFn: async () => dataOf(await api.DELETE("/v1/projects/{id}", path)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ["projects"] });
      void navigate({ to: "/projects" });
    },
  });

  if (project.error) return <ProblemView error={project.error} />;
  const p = project.data;
  if (!p) return <p role="status">Loading…</p>;
  const writer = canWrite(me.data, p.team_id) && !p.archived_at;
  const o = overview.data;

  return (
    <main>
      <div className="heading">
        <h1>{p.name}</h1>
        {writer ? (
          <div className="actions">
            <button type="button" onClick={() => setEditing((e) => !e)} aria-expanded={editing}>
              Edit
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (window.confirm(`Archive ${p.name}? Its scans stay readable; its slug becomes free.`))
                  archive.mutate();
              }}
            >
              Archive
            </button>
          </div>
        ) : null}
      </div>
      <p className="muted">
        {p.team_name} · {p.slug}
        {p.archived_at ? ` · archived ${new Date(p.archived_at).toLocaleDateString()}` : ""}
      </p>
      {p.description ? <p>{p.description}</p> : null}
      <nav className="actions" aria-label="Project">
        <Link to="/projects/$projectId/components" params={{ projectId }}>
          Components
        </Link>
        <Link to="/projects/$projectId/vulnerabilities" params={{ projectId }}>
          Vulnerabilities
        </Link>
        <Link to="/projects/$projectId/licenses" params={{ projectId }}>
          Licenses
        </Link>
        <Link to="/projects/$projectId/graph" params={{ projectId }}>
          Dependency graph
        </Link>
        <Link to="/projects/$projectId/releases/diff" params={{ projectId }}>
          Release diff
        </Link>
        <Link to="/projects/$projectId/remediation" params={{ projectId }}>
          Remediation
        </Link>
        {canAdminister(me.data, p.team_id) ? (
          <Link to="/projects/$projectId/webhook" params={{ projectId }}>
            Repository webhook
          </Link>
        ) : null}
        <button
          type="button"
          onClick={() => {
            setDownloadError(null);
            download(`/v1/projects/${projectId}/sbom?format=cyclonedx-json`, `${p.slug}.cdx.json`).catch(
              setDownloadError,
            );
          }}
        >
          Download SBOM
        </button>
      </nav>
      <ProblemView error={edit.error ?? archive.error ?? overview.error ?? gate.error ?? downloadError} />
      {editing ? (
        <form
          className="card"
          aria-label="Edit project"
          onSubmit={(e) => {
            e.preventDefault();
            edit.mutate(new FormData(e.currentTarget));
          }}
        >
          <label>
            Name
            <input name="name" defaultValue={p.name} required maxLength={255} />
          </label>
          <label>
            Description
            <textarea name="description" defaultValue={p.description ?? ""} maxLength={2000} />
          </label>
          <button type="submit" disabled={edit.isPending}>
            Save
          </button>
        </form>
      ) : null}
      {o ? (
        <section aria-label="Overview" className="scores">
          <Score label="Risk score" value={o.risk_score} />
          <Score label="Security score" value={o.security_score} />
          <Score label="License score" value={o.license_score} />
          <Score label="Components" value={o.total_components} />
          <Score label="Malicious" value={o.malicious_count} />
          <Score label="Outdated" value={o.outdated_count} />
        </section>
      ) : null}
      {o && o.total_components > 0 ? (
        <section aria-label="Distributions" className="charts">
          <Chart
            label="Components by highest severity"
            categories={SEVERITY_ORDER}
            series={[{ name: "Components", values: SEVERITY_ORDER.map((k) => o.severity_distribution[k] ?? 0) }]}
          />
          <Chart
            label="Components by license category"
            categories={LICENSE_ORDER}
            series={[{ name: "Components", values: LICENSE_ORDER.map((k) => o.license_distribution[k] ?? 0) }]}
          />
        </section>
      ) : null}
      {gate.data ? (
        <section aria-label="Gate result" className="card">
          <h2>
            Gate: <span data-testid="gate-outcome">{gate.data.outcome}</span>
          </h2>
          {gate.data.reasons.length ? (
            <ul>
              {gate.data.reasons.map((r) => (
                <li key={r.code}>{r.message}</li>
              ))}
            </ul>
          ) : (
            <p>No reason to fail.</p>
          )}
        </section>
      ) : null}
      <GatePolicyInEffect projectId={projectId} />
      {/* The signing artifacts need a developer of the team: the API refuses a viewer. */}
      {canWrite(me.data, p.team_id) ? <SignedSbom projectId={projectId} slug={p.slug} /> : null}
      {writer ? (
        <div className="scan-forms">
          <StartScan projectId={projectId} kind="sbom" />
          <StartScan projectId={projectId} kind="source" />
          <StartScan projectId={projectId} kind="container" />
        </div>
      ) : null}
      <h2>Recent scans</h2>
      {o?.recent_scans.length ? (
        <ScanTable projectId={projectId} scans={o.recent_scans} label="Recent scans" />
      ) : o ? (
        <p>No scans yet.</p>
      ) : null}
      <p>
        <Link to="/projects/$projectId/scans" params={{ projectId }}>
          Every scan
        </Link>
      </p>
    </main>
  );
}
