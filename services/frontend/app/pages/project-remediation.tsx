// A project's npm remediation: the dry-run (developer and above: the package.json edit that moves each vulnerable npm
// package of the newest scan to its fix, every field of the API's answer shown), the remediation pull requests (every
// member, newest first, paged by the API) and, for the team's administrators, "Open pull request" with each of the
// API's answers said plainly. The manifest typed is sent to both; left empty, the API reads its own.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { useState } from "react";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { canAdminister, canWrite, useMe } from "../session/me.ts";

const PAGE_SIZE = 20;
type DryRun = Schemas["NpmRemediationDryRun"];
type PullRequest = Schemas["RemediationPullRequest"];

/** The body both calls take: the typed manifest, or none (the API then reads the scan's, or the repository's). */
const bodyOf = (manifest: string) => (manifest.trim() ? { manifest } : {});

const SOURCES: Record<DryRun["manifest_source"], string> = {
  override: "the manifest typed here",
  preserved_source: "the newest scan's preserved source",
  none: "none (no manifest typed, and the newest scan preserved none)",
};

export function ProjectRemediationPage() {
  const { projectId }: { projectId: string } = useParams({ strict: false });
  const me = useMe();
  const project = useQuery({
    queryKey: ["project", projectId],
    queryFn: async () => dataOf(await api.GET("/v1/projects/{id}", { params: { path: { id: projectId } } })),
  });
  const [manifest, setManifest] = useState("");
  const path = { params: { path: { project_id: projectId } } };
  const dryRun = useMutation({
    mutationFn: async () =>
      dataOf(await api.POST("/v1/projects/{project_id}/remediation/npm/dry-run", { ...path, body: bodyOf(manifest) })),
  });
  const teamId = project.data?.team_id;
  return (
    <main>
      <h1>Remediation{project.data ? ` of ${project.data.name}` : ""}</h1>
      <p>
        <Link to="/projects/$projectId" params={{ projectId }}>
          Back to the project
        </Link>
      </p>
      <ProblemView error={project.error} />
      {canWrite(me.data, teamId) ? (
        <form
          className="card"
          aria-label="npm remediation"
          onSubmit={(e) => {
            e.preventDefault();
            dryRun.mutate();
          }}
        >
          <h2>npm remediation</h2>
          <label>
            package.json (empty: the newest scan&apos;s preserved source, or for a pull request the repository&apos;s)
            <textarea
              name="manifest"
              rows={8}
              spellCheck={false}
              value={manifest}
              onChange={(e) => setManifest(e.target.value)}
            />
          </label>
          <button type="submit" disabled={dryRun.isPending}>
            Preview
          </button>
          {canAdminister(me.data, teamId) ? <OpenPullRequest projectId={projectId} manifest={manifest} /> : null}
          <ProblemView error={dryRun.error} />
        </form>
      ) : null}
      {dryRun.data ? <DryRunView run={dryRun.data} /> : null}
      <PullRequests projectId={projectId} />
    </main>
  );
}

function DryRunView({ run }: { run: DryRun }) {
  return (
    <section aria-labelledby="dry-run" className="card">
      <h2 id="dry-run">Preview</h2>
      <dl data-testid="dry-run">
        <dt>From the scan</dt>
        <dd>{run.scan_id ?? "none (the project has no succeeded scan)"}</dd>
        <dt>Manifest read</dt>
        <dd>{SOURCES[run.manifest_source]}</dd>
        <dt>Manifest found</dt>
        <dd>{run.manifest_found ? "yes" : "no"}</dd>
        <dt>Changed</dt>
        <dd>{run.changed ? "yes" : "no"}</dd>
      </dl>
      <h3>Recommended versions</h3>
      {run.recommendations.length ? (
        <table aria-label="Recommended versions">
          <thead>
            <tr>
              <th scope="col">Package</th>
              <th scope="col">Current</th>
              <th scope="col">Recommended</th>
            </tr>
          </thead>
          <tbody>
            {run.recommendations.map((r) => (
              <tr key={r.package}>
                <td>{r.package}</td>
                <td>{r.current_version}</td>
                <td>{r.recommended_version}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No vulnerable npm package with a fix in the newest scan.</p>
      )}
      <h3>Edits</h3>
      {run.changes.length ? (
        <table aria-label="Edits">
          <thead>
            <tr>
              <th scope="col">Package</th>
              <th scope="col">Section</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
              <th scope="col">Changed</th>
            </tr>
          </thead>
          <tbody>
            {run.changes.map((c) => (
              <tr key={`${c.section} ${c.package}`}>
                <td>{c.package}</td>
                <td>{c.section}</td>
                <td>
                  <code>{c.before}</code>
                </td>
                <td>
                  <code>{c.after}</code>
                </td>
                <td>{c.changed ? "yes" : "no"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No edit.</p>
      )}
      {run.warnings.length ? (
        <>
          <h3>Warnings</h3>
          <ul aria-label="Warnings">
            {run.warnings.map((w, i) => (
              <li key={i}>
                <code>{w.code}</code>
                {w.package ? ` (${w.package})` : ""}: {w.detail}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {run.notes.length ? (
        <>
          <h3>Notes</h3>
          <ul aria-label="Notes">
            {run.notes.map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </>
      ) : null}
      {run.edited_manifest !== undefined ? (
        <>
          <h3>Edited package.json</h3>
          <pre tabIndex={0} aria-label="Edited package.json" className="log">
            {run.edited_manifest}
          </pre>
        </>
      ) : null}
    </section>
  );
}

/** The API's answer to "Open pull request" in words: 201 new, 200 the open one with the same bumps, 204 nothing. */
function openedSentence(status: number, pr: PullRequest | undefined): string {
  if (status === 204 || !pr) return "Nothing to remediate: no vulnerable npm package of the newest scan needs a bump.";
  const where = pr.pr_url ?? `${pr.repository_full_name} (${pr.head_branch})`;
  return status === 201
    ? `Pull request${pr.pr_number === null ? "" : ` #${pr.pr_number}`} opened (${pr.status}): ${where}`
    : `A pull request with the same bumps is already open: ${where}`;
}

function OpenPullRequest({ projectId, manifest }: { projectId: string; manifest: string }) {
  const queryClient = useQueryClient();
  const open = useMutation({
    mutationFn: async () => {
      const answer = await api.POST("/v1/projects/{project_id}/remediation/npm/pull-request", {
        params: { path: { project_id: projectId } },
        body: bodyOf(manifest),
      });
      const pr = dataOf(answer);
      return openedSentence(answer.response.status, pr);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["remediation", projectId] }),
  });
  return (
    <>
      {" "}
      <button type="button" onClick={() => open.mutate()} disabled={open.isPending}>
        Open pull request
      </button>
      {open.data ? <p role="status">{open.data}</p> : null}
      <ProblemView error={open.error} />
    </>
  );
}

function PullRequests({ projectId }: { projectId: string }) {
  const [page, setPage] = useState(1);
  const query = { page, page_size: PAGE_SIZE };
  const prs = useQuery({
    queryKey: ["remediation", projectId, query],
    queryFn: async () =>
      dataOf(
        await api.GET("/v1/projects/{project_id}/remediation/pull-requests", {
          params: { path: { project_id: projectId }, query },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  const columns: Columns<PullRequest> = [
    { id: "created", header: "Asked", cell: ({ row }) => new Date(row.original.created_at).toLocaleString() },
    { id: "status", header: "Status", cell: ({ row }) => row.original.status },
    { id: "host", header: "On the host", cell: ({ row }) => row.original.pr_state ?? "—" },
    { id: "repository", header: "Repository", cell: ({ row }) => row.original.repository_full_name },
    {
      id: "branch",
      header: "Branch",
      cell: ({ row }) => (
        <code>
          {row.original.head_branch} → {row.original.base_branch}
        </code>
      ),
    },
    {
      id: "bumps",
      header: "Bumps",
      cell: ({ row }) => row.original.package_changes.map((c) => `${c.package} ${c.from} → ${c.to}`).join(", "),
    },
    {
      id: "url",
      header: "Pull request",
      cell: ({ row: { original: pr } }) =>
        pr.pr_url ? (
          <a href={pr.pr_url} target="_blank" rel="noreferrer">
            {pr.pr_number === null ? pr.pr_url : `#${pr.pr_number}`}
          </a>
        ) : (
          "—"
        ),
    },
    { id: "updated", header: "Changed", cell: ({ row }) => new Date(row.original.updated_at).toLocaleString() },
  ];
  return (
    <section aria-labelledby="pull-requests">
      <h2 id="pull-requests">Pull requests</h2>
      <ProblemView error={prs.error} />
      <DataTable label="Pull requests" columns={columns} rows={prs.data?.items} rowId={(pr) => pr.id} />
      <Pager
        offset={(page - 1) * PAGE_SIZE}
        limit={PAGE_SIZE}
        total={prs.data?.total ?? 0}
        onOffset={(offset) => setPage(offset / PAGE_SIZE + 1)}
      />
    </section>
  );
}
