// The portfolio's dashboard over what the caller may read: the overview's counts as charts, the teams by risk and the
// trends (open and fixed findings, blocked gates) over the last 30 days. Every figure is the API's aggregate: no list is
// loaded to be counted here.
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useEffect } from "react";
import type { Schemas } from "@sca/api-client";
import { Chart, preloadCharts } from "../chart.tsx";
import { ActionQueue } from "./action-queue.tsx";
import { DataTable, type Columns } from "../data-table.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { Score } from "../score.tsx";
import { api } from "../session/session.ts";

const SEVERITIES = ["critical", "high", "medium", "low", "unknown"] as const;
const CATEGORIES = ["allowed", "conditional", "forbidden", "uncategorized"] as const;
const TREND_POINTS = 30;

const teamColumns: Columns<Schemas["TeamsByRisk"]["teams"][number]> = [
  { id: "team", header: "Team", cell: ({ row }) => row.original.team_name },
  { id: "risk", header: "Risk score", cell: ({ row }) => row.original.risk_score },
  { id: "projects", header: "Projects", cell: ({ row }) => row.original.project_count },
  { id: "blocked", header: "Gates blocked", cell: ({ row }) => row.original.gate_blocked },
  { id: "critical", header: "Critical", cell: ({ row }) => row.original.vulnerability_severity_counts.critical },
  { id: "kev", header: "Known exploited", cell: ({ row }) => row.original.known_exploited },
  { id: "forbidden", header: "Forbidden licenses", cell: ({ row }) => row.original.forbidden_licenses },
];

const scanColumns: Columns<Schemas["PortfolioOverview"]["recent_scans"][number]> = [
  {
    id: "project",
    header: "Project",
    cell: ({ row: { original: s } }) => (
      <Link to="/projects/$projectId/scans/$scanId" params={{ projectId: s.project_id, scanId: s.scan_id }}>
        {s.project_name}
      </Link>
    ),
  },
  { id: "status", header: "Status", cell: ({ row }) => row.original.status },
  { id: "release", header: "Release", cell: ({ row }) => row.original.release ?? "—" },
  { id: "created", header: "Started", cell: ({ row }) => new Date(row.original.created_at).toLocaleString() },
];

export function DashboardPage() {
  useEffect(preloadCharts, []);
  const overview = useQuery({
    queryKey: ["dashboard", "overview"],
    queryFn: async () => dataOf(await api.GET("/v1/dashboard/overview")),
  });
  const teams = useQuery({
    queryKey: ["dashboard", "teams-by-risk"],
    queryFn: async () => dataOf(await api.GET("/v1/dashboard/teams-by-risk")),
  });
  const trends = useQuery({
    queryKey: ["dashboard", "trends"],
    queryFn: async () =>
      dataOf(await api.GET("/v1/dashboard/trends", { params: { query: { interval: "day", points: TREND_POINTS } } })),
  });
  const o = overview.data;
  const buckets = trends.data?.buckets ?? [];
  return (
    <main>
      <h1>Dashboard</h1>
      <ProblemView error={overview.error ?? teams.error ?? trends.error} />
      {o ? (
        <>
          <section aria-label="Portfolio" className="scores">
            <Score label="Projects" value={o.project_count} />
            <Score label="Known exploited" value={o.known_exploited_count} />
            {o.pending_approvals_count !== null ? (
              <Score label="Approvals pending" value={o.pending_approvals_count} />
            ) : null}
          </section>
          <section aria-label="Distributions" className="charts">
            <Chart
              label="Open findings by severity"
              categories={[...SEVERITIES]}
              series={[{ name: "Findings", values: SEVERITIES.map((k) => o.vulnerability_severity_counts[k]) }]}
            />
            <Chart
              label="Components by license category"
              categories={[...CATEGORIES]}
              series={[{ name: "Components", values: CATEGORIES.map((k) => o.license_category_counts[k]) }]}
            />
          </section>
        </>
      ) : (
        <p role="status">Loading…</p>
      )}
      {buckets.length ? (
        <section aria-label="Trends" className="charts">
          <Chart
            kind="line"
            label={`Findings over the last ${TREND_POINTS} days`}
            categories={buckets.map((b) => b.period_start.slice(0, 10))}
            series={[
              { name: "Open", values: buckets.map((b) => b.open_findings) },
              { name: "Fixed", values: buckets.map((b) => b.fixed_findings) },
              { name: "Gates blocked", values: buckets.map((b) => b.gate_blocked) },
            ]}
          />
        </section>
      ) : null}
      <ActionQueue />
      <h2>Teams by risk</h2>
      {teams.data?.truncated ? (
        <p className="muted">
          The {teams.data.shown_team_count} riskiest of {teams.data.team_count} teams.
        </p>
      ) : null}
      <DataTable label="Teams by risk" columns={teamColumns} rows={teams.data?.teams} rowId={(t) => t.team_id} />
      <h2>Recent scans</h2>
      <DataTable label="Recent scans" columns={scanColumns} rows={o?.recent_scans} rowId={(s) => s.scan_id} />
    </main>
  );
}
