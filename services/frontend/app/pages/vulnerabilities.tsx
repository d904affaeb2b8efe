// A project's vulnerability findings: the spec's filters done by the API, and triage (a VEX state with its
// justification, responses and detail) sent with If-Match; a conflict shows the current finding to decide again.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import type { Schemas } from "@sca/api-client";
import { FINDING_SEVERITIES, VEX_JUSTIFICATIONS, VEX_RESPONSES, VEX_STATES } from "@sca/vocabulary";
import { AnyOf } from "../any-of.tsx";
import { field, filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf, ProblemError } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { canAdminister, canWrite, useMe } from "../session/me.ts";
import { PendingChange } from "./status-confirmation.tsx";
import { VexExport, VexImport } from "./vex.tsx";

type Finding = Schemas["VulnerabilityFinding"];
const LIMIT = 50;

export interface FindingsSearch {
  severity?: string;
  status?: string;
  kev?: string;
  fix?: string;
  epss?: string;
  search?: string;
  offset?: number;
}

export function VulnerabilitiesPage() {
  const { projectId }: { projectId: string } = useParams({ strict: false });
  const search: FindingsSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const me = useMe();
  const project = useQuery({
    queryKey: ["project", projectId],
    queryFn: async () => dataOf(await api.GET("/v1/projects/{id}", { params: { path: { id: projectId } } })),
  });
  const [triaging, setTriaging] = useState<Finding | null>(null);
  const offset = search.offset ?? 0;
  const query = {
    limit: LIMIT,
    offset,
    ...(search.severity ? { severity: search.severity } : {}),
    ...(search.status ? { status: search.status } : {}),
    ...(search.kev === "true" ? { known_exploited: "true" as const } : {}),
    ...(search.fix === "true" ? { has_fix: "true" as const } : {}),
    ...(search.epss ? { epss_min: Number(search.epss) } : {}),
    ...(search.search ? { search: search.search } : {}),
  };
  const findings = useQuery({
    queryKey: ["project", projectId, "findings", query],
    queryFn: async () =>
      dataOf(await api.GET("/v1/projects/{id}/vulnerabilities", { params: { path: { id: projectId }, query } })),
    placeholderData: (previous) => previous,
  });
  const go = (next: FindingsSearch) =>
    void navigate({
      to: "/projects/$projectId/vulnerabilities",
      params: { projectId },
      search: { ...search, ...next },
    });
  const writer = canWrite(me.data, project.data?.team_id);

  return (
    <main>
      <p>
        <Link to="/projects/$projectId" params={{ projectId }}>
          Back to the project
        </Link>
      </p>
      <div className="heading">
        <h1>Vulnerabilities</h1>
        <div className="actions">
          <VexExport projectId={projectId} />
        </div>
      </div>
      {canAdminister(me.data, project.data?.team_id) ? <VexImport projectId={projectId} /> : null}
      <form
        className="filters"
        role="search"
        aria-label="Filter findings"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          go({
            ...filters(form, ["severity", "status", "kev", "fix", "epss", "search"]),
            offset: 0,
          });
        }}
      >
        <label>
          Search
          <input name="search" type="search" defaultValue={search.search ?? ""} />
        </label>
        <AnyOf label="Severity" name="severity" words={FINDING_SEVERITIES} value={search.severity} />
        <AnyOf label="Status" name="status" words={VEX_STATES} value={search.status} />
        <label>
          EPSS at least
          <input name="epss" type="number" min={0} max={1} step={0.01} defaultValue={search.epss ?? ""} />
        </label>
        <label className="inline">
          <input type="checkbox" name="kev" value="true" defaultChecked={search.kev === "true"} />
          Known exploited
        </label>
        <label className="inline">
          <input type="checkbox" name="fix" value="true" defaultChecked={search.fix === "true"} />
          Fix available
        </label>
        <button type="submit">Filter</button>
      </form>
      <ProblemView error={findings.error} />
      {triaging ? <Triage finding={triaging} onDone={() => setTriaging(null)} projectId={projectId} /> : null}
      <table aria-label="Findings">
        <thead>
          <tr>
            <th scope="col">Vulnerability</th>
            <th scope="col">Component</th>
            <th scope="col">Severity</th>
            <th scope="col">EPSS</th>
            <th scope="col">Status</th>
            {writer ? <th scope="col">Triage</th> : null}
          </tr>
        </thead>
        <tbody>
          {findings.data?.items.map((f) => (
            <tr key={f.id}>
              <td>
                {f.vulnerability_id}
                {f.known_exploited ? <span className="badge">KEV</span> : null}
              </td>
              <td>
                {f.component_name} {f.component_version}
              </td>
              <td>{f.severity}</td>
              <td>{f.epss_score ?? "—"}</td>
              <td>
                {f.status}
                {f.justification ? ` (${f.justification})` : ""}
                <PendingChange finding={f} projectId={projectId} writer={writer} meId={me.data?.id} />
              </td>
              {writer ? (
                <td>
                  <button
                    type="button"
                    onClick={() => setTriaging(f)}
                    aria-label={`Triage ${f.vulnerability_id} in ${f.component_name}`}
                  >
                    Triage
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {findings.data ? (
        <Pager offset={offset} limit={LIMIT} total={findings.data.total} onOffset={(o) => go({ offset: o })} />
      ) : null}
    </main>
  );
}

function Triage({ finding, projectId, onDone }: { finding: Finding; projectId: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState(finding);
  const [status, setStatus] = useState(finding.status);
  const [outcome, setOutcome] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async (form: FormData) => {
      const answer = await api.PATCH("/v1/vulnerability_findings/{finding_id}/status", {
        params: { path: { finding_id: current.id } },
        headers: { "If-Match": `"${current.version}"` },
        body: {
          status,
          justification: status === "not_affected" ? field(form, "justification") || null : null,
          response: form.getAll("response").filter((r): r is string => typeof r === "string"),
          detail: field(form, "detail") || null,
        },
      });
      return { finding: dataOf(answer), pending: answer.response.status === 202 };
    },
    onSuccess: async ({ pending }) => {
      await queryClient.invalidateQueries({ queryKey: ["project", projectId] });
      if (pending) setOutcome("Saved. The change waits for a second person to confirm it.");
      else onDone();
    },
    onError: async (err) => {
      // 412: someone changed the finding meanwhile; show theirs and let the user decide again.
      if (err instanceof ProblemError && err.status === 412) {
        const fresh = await api.GET("/v1/vulnerability_findings/{finding_id}", {
          params: { path: { finding_id: current.id } },
        });
        if (fresh.data) setCurrent(fresh.data);
      }
    },
  });
  const conflict = save.error instanceof ProblemError && save.error.status === 412;
  return (
    <form
      className="card"
      aria-label={`Triage ${finding.vulnerability_id}`}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(new FormData(e.currentTarget));
      }}
    >
      <h2>
        Triage {finding.vulnerability_id} in {finding.component_name} {finding.component_version}
      </h2>
      {conflict ? (
        <p role="alert">
          Someone else changed this finding meanwhile: it is now {current.status}
          {current.justification ? ` (${current.justification})` : ""}. Save again to replace it with your choice.
        </p>
      ) : (
        <ProblemView error={save.error} />
      )}
      {outcome ? <p role="status">{outcome}</p> : null}
      <label>
        State
        <select name="status" value={status} onChange={(e) => setStatus(e.target.value)}>
          {VEX_STATES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      {status === "not_affected" ? (
        <label>
          Justification
          <select name="justification" required defaultValue={current.justification ?? ""}>
            <option value="" disabled>
              choose one
            </option>
            {VEX_JUSTIFICATIONS.map((j) => (
              <option key={j}>{j}</option>
            ))}
          </select>
        </label>
      ) : null}
      <fieldset>
        <legend>Responses</legend>
        {VEX_RESPONSES.map((r) => (
          <label key={r} className="inline">
            <input type="checkbox" name="response" value={r} defaultChecked={current.response.includes(r)} />
            {r}
          </label>
        ))}
      </fieldset>
      <label>
        Detail
        <textarea name="detail" maxLength={10000} defaultValue={current.detail ?? ""} />
      </label>
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          Save
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
