// The dashboard's action queue (`/v1/dashboard/action-queue`): what needs someone now, each list the API's own top
// entries with its full count: gates blocked, known-exploited findings by due date, approvals waiting, stale projects.
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import type { Schemas } from "@sca/api-client";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

const SHOWN = 10;
type Queued = Schemas["QueuedProject"];

function ProjectList({ label, items, note }: { label: string; items: Queued[]; note: (p: Queued) => string }) {
  if (!items.length) return <p className="muted">None.</p>;
  return (
    <ul aria-label={label}>
      {items.map((p) => (
        <li key={p.project_id}>
          <Link to="/projects/$projectId" params={{ projectId: p.project_id }}>
            {p.project_name}
          </Link>{" "}
          <span className="muted">{note(p)}</span>
        </li>
      ))}
    </ul>
  );
}

const heading = (title: string, shown: number, count: number) =>
  `${title} (${count > shown ? `the first ${shown} of ${count}` : count})`;

export function ActionQueue() {
  const queue = useQuery({
    queryKey: ["dashboard", "action-queue"],
    queryFn: async () => dataOf(await api.GET("/v1/dashboard/action-queue", { params: { query: { limit: SHOWN } } })),
  });
  const q = queue.data;
  return (
    <section aria-labelledby="action-queue">
      <h2 id="action-queue">Action queue</h2>
      <ProblemView error={queue.error} />
      {q ? (
        <div className="charts">
          <div>
            <h3>{heading("Gates blocked", q.gate_blocked.items.length, q.gate_blocked.count)}</h3>
            <ProjectList
              label="Gates blocked"
              items={q.gate_blocked.items}
              note={(p) =>
                `risk ${p.risk_score}: ${p.critical} critical, ${p.forbidden_licenses} forbidden licenses, ${p.malicious} malicious`
              }
            />
          </div>
          <div>
            <h3>{heading("Known exploited", q.kev_sla.items.length, q.kev_sla.count)}</h3>
            <ProjectList
              label="Known exploited"
              items={q.kev_sla.items}
              note={(p) => `${p.known_exploited} open, due ${p.kev_oldest_due_date ?? "—"}`}
            />
          </div>
          {q.pending_approvals ? (
            <div>
              <h3>{heading("Approvals waiting", q.pending_approvals.items.length, q.pending_approvals.count)}</h3>
              {q.pending_approvals.items.length ? (
                <ul aria-label="Approvals waiting">
                  {q.pending_approvals.items.map((a) => (
                    <li key={a.id}>
                      <Link to="/projects/$projectId" params={{ projectId: a.project_id }}>
                        {a.project_name}
                      </Link>
                      : {a.component_name} ({a.status}, asked by {a.requested_by_name ?? "—"})
                    </li>
                  ))}
                </ul>
              ) : (
                <p className="muted">None.</p>
              )}
            </div>
          ) : null}
          <div>
            <h3>
              {heading(
                `Not scanned for ${q.stale_after_days} days`,
                q.stale_projects.items.length,
                q.stale_projects.count,
              )}
            </h3>
            <ProjectList
              label="Stale projects"
              items={q.stale_projects.items}
              note={(p) => (p.last_scanned_at ? `last ${new Date(p.last_scanned_at).toLocaleDateString()}` : "never")}
            />
          </div>
        </div>
      ) : null}
    </section>
  );
}
