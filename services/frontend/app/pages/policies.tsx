// License and gate policies of a team and of an organization: what is in force and where each value comes from (the
// team's own policy or what it inherits), and for those the API lets write (a team's team_admin, a super_admin for
// both levels) the editors.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { filters } from "../form.ts";
import { dataOf, ProblemError } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { canAdminister, useMe } from "../session/me.ts";
import { api } from "../session/session.ts";
import { OrganizationChoice, TeamChoice, useOrganizations, useTeams } from "./governance-scope.tsx";
import { GATE_FIELDS, GATE_LABELS, GatePolicyForm, gateValue, LicensePolicyForm } from "./policy-forms.tsx";

export interface PoliciesSearch {
  team_id?: string;
  organization_id?: string;
}

interface Row {
  id: string;
  setting: string;
  value: string;
  from: string;
}

const columns: Columns<Row> = [
  { id: "setting", header: "Setting", cell: ({ row }) => row.original.setting },
  { id: "value", header: "Value", cell: ({ row }) => row.original.value },
  { id: "from", header: "From", cell: ({ row }) => row.original.from },
];

/** A policy the API answers 404 for is one that is not set: the level inherits. */
async function orNull<T>(read: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T | null> {
  try {
    return dataOf(await read);
  } catch (error) {
    if (error instanceof ProblemError && error.status === 404) return null;
    throw error;
  }
}

const INHERITED = "inherited (organization, else the deployment's setting or the default)";

/**
 * Each gate setting of the team: the value in effect and its level, read from the effective policy of one of the
 * team's projects (the API answers where each value comes from only per project); a team without projects shows what
 * its own policy sets and calls the rest inherited.
 */
function gateRows(policy: Schemas["GatePolicy"] | null, effective: Schemas["EffectiveGatePolicy"] | null): Row[] {
  return GATE_FIELDS.map((f) => {
    if (effective)
      return { id: f, setting: GATE_LABELS[f], value: gateValue(effective, f), from: effective.sources[f] };
    return policy?.set_fields.includes(f)
      ? { id: f, setting: GATE_LABELS[f], value: gateValue(policy, f), from: "team" }
      : { id: f, setting: GATE_LABELS[f], value: "—", from: INHERITED };
  });
}

function licenseRows(policy: Schemas["EffectiveLicensePolicy"] | Schemas["LicensePolicy"] | null, from: string): Row[] {
  if (!policy) return [{ id: "catalog", setting: "Every license", value: "the built-in catalog's category", from }];
  return [
    { id: "enabled", setting: "Enabled", value: policy.enabled ? "yes" : "no", from },
    { id: "unknown", setting: "Category of an unknown license", value: policy.unknown_license_category, from },
    ...Object.entries(policy.category_overrides).map(([id, category]) => ({
      id: `override-${id}`,
      setting: `Override: ${id}`,
      value: category,
      from,
    })),
    ...policy.license_exceptions.map((x, i) => ({
      id: `exception-${i}`,
      setting: `Exception: ${x.spdx_id}${x.component_purl ? ` for ${x.component_purl}` : ""}`,
      value: `allowed (${x.reason})${x.expires_at ? ` until ${new Date(x.expires_at).toLocaleDateString()}` : ""}`,
      from,
    })),
    {
      id: "compound",
      setting: "Compound expressions",
      value: `AND ${policy.compound_operator_strategy.AND}, OR ${policy.compound_operator_strategy.OR}, WITH ${policy.compound_operator_strategy.WITH}`,
      from,
    },
  ];
}

function TeamPolicies({ teamId }: { teamId: string }) {
  const me = useMe();
  // A 404 means "no policy" only to the team's members: to anyone else it is the API's answer (not a member).
  const member = me.data?.is_superuser === true || (me.data?.memberships.some((m) => m.team_id === teamId) ?? false);
  const absentOrNull = <T,>(read: Promise<{ data?: T; error?: unknown; response: Response }>) =>
    member ? orNull(read) : read.then(dataOf);
  const queryClient = useQueryClient();
  const [removeError, setRemoveError] = useState<unknown>(null);
  const gate = useQuery({
    queryKey: ["policies", "gate", "team", teamId],
    enabled: me.data !== undefined,
    queryFn: () =>
      absentOrNull(api.GET("/v1/gate-policies/teams/{team_id}", { params: { path: { team_id: teamId } } })),
  });
  const effective = useQuery({
    queryKey: ["policies", "gate", "effective", teamId],
    enabled: member,
    queryFn: async () => {
      const projects = dataOf(await api.GET("/v1/projects", { params: { query: { team_id: teamId, size: 1 } } }));
      const project = projects.items[0];
      if (!project) return null;
      const path = { params: { path: { project_id: project.id } } };
      return dataOf(await api.GET("/v1/gate-policies/projects/{project_id}", path));
    },
  });
  const license = useQuery({
    queryKey: ["policies", "license", "team", teamId],
    enabled: me.data !== undefined,
    queryFn: () =>
      absentOrNull(api.GET("/v1/license-policies/teams/{team_id}", { params: { path: { team_id: teamId } } })),
  });
  const admin = canAdminister(me.data, teamId);
  const remove = async (which: "gate" | "license") => {
    setRemoveError(null);
    const path = { params: { path: { team_id: teamId } } };
    try {
      dataOf(
        which === "gate"
          ? await api.DELETE("/v1/gate-policies/teams/{team_id}", path)
          : await api.DELETE("/v1/license-policies/teams/{team_id}", path),
      );
      await queryClient.invalidateQueries({ queryKey: ["policies"] });
    } catch (error) {
      setRemoveError(error);
    }
  };
  const licenseFrom = license.data
    ? license.data.scope === "team"
      ? "team"
      : "organization"
    : "built-in catalog (no policy in force)";
  return (
    <>
      <section aria-labelledby="team-gate" className="card">
        <h2 id="team-gate">The team's gate policy</h2>
        <ProblemView error={gate.error ?? effective.error} />
        {gate.isSuccess && (effective.isSuccess || !member) ? (
          <DataTable
            label="Team gate policy"
            columns={columns}
            rows={gateRows(gate.data, effective.data ?? null)}
            rowId={(r) => r.id}
          />
        ) : null}
        {admin && gate.isSuccess ? (
          <>
            <GatePolicyForm
              label="Edit the team's gate policy"
              policy={gate.data}
              save={async (body) =>
                dataOf(
                  await api.PUT("/v1/gate-policies/teams/{team_id}", { params: { path: { team_id: teamId } }, body }),
                )
              }
            />
            {gate.data ? (
              <button type="button" onClick={() => void remove("gate")}>
                Remove the team's gate policy
              </button>
            ) : null}
          </>
        ) : null}
      </section>
      <section aria-labelledby="team-license" className="card">
        <h2 id="team-license">The team's license policy</h2>
        <ProblemView error={license.error} />
        {license.isSuccess ? (
          <>
            <p data-testid="license-policy-source">In force: {licenseFrom}</p>
            <DataTable
              label="Team license policy"
              columns={columns}
              rows={licenseRows(license.data, licenseFrom)}
              rowId={(r) => r.id}
            />
          </>
        ) : null}
        {admin && license.isSuccess ? (
          <>
            <LicensePolicyForm
              label="Edit the team's license policy"
              policy={license.data}
              save={async (body) =>
                dataOf(
                  await api.PUT("/v1/license-policies/teams/{team_id}", {
                    params: { path: { team_id: teamId } },
                    body,
                  }),
                )
              }
            />
            {license.data?.scope === "team" ? (
              <button type="button" onClick={() => void remove("license")}>
                Return to the organization's license policy
              </button>
            ) : null}
          </>
        ) : null}
      </section>
      <ProblemView error={removeError} />
    </>
  );
}

function OrganizationPolicies({ organizationId }: { organizationId: string }) {
  const path = { params: { path: { organization_id: organizationId } } };
  const license = useQuery({
    queryKey: ["policies", "license", "org", organizationId],
    queryFn: () => orNull(api.GET("/v1/license-policies/org/{organization_id}", path)),
  });
  return (
    <section aria-labelledby="org-policies" className="card">
      <h2 id="org-policies">The organization's policies</h2>
      <ProblemView error={license.error} />
      {license.isSuccess ? (
        <>
          <DataTable
            label="Organization license policy"
            columns={columns}
            rows={licenseRows(license.data, license.data ? "organization" : "built-in catalog (no default set)")}
            rowId={(r) => r.id}
          />
          <LicensePolicyForm
            label="Edit the organization's license policy"
            policy={license.data}
            save={async (body) =>
              dataOf(await api.PUT("/v1/license-policies/org/{organization_id}", { ...path, body }))
            }
          />
        </>
      ) : null}
      <p className="muted">
        The API does not read an organization's gate policy back: a project's page shows each value in effect and
        whether it comes from the organization. Saving sets the ticked settings and lets the others inherit.
      </p>
      <GatePolicyForm
        label="Set the organization's gate policy"
        policy={null}
        save={async (body) => dataOf(await api.PUT("/v1/gate-policies/org/{organization_id}", { ...path, body }))}
      />
    </section>
  );
}

export function PoliciesPage() {
  const search: PoliciesSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const me = useMe();
  const teams = useTeams();
  const organizations = useOrganizations();
  const teamId = search.team_id ?? teams.data?.[0]?.id;
  const organizationId = search.organization_id ?? organizations.data?.[0]?.id;
  const superAdmin = me.data?.is_superuser ?? false;
  return (
    <main>
      <h1>Policies</h1>
      <ProblemView error={teams.error ?? organizations.error} />
      <form
        className="filters"
        aria-label="Choose the policies"
        onSubmit={(e) => {
          e.preventDefault();
          void navigate({
            to: "/policies",
            search: filters(new FormData(e.currentTarget), ["team_id", "organization_id"]),
          });
        }}
      >
        <TeamChoice teams={teams.data} value={teamId} />
        {superAdmin ? <OrganizationChoice organizations={organizations.data} value={organizationId} /> : null}
        <button type="submit">Show</button>
      </form>
      {teams.data && !teams.data.length ? <p>You belong to no team.</p> : null}
      {teamId ? <TeamPolicies key={teamId} teamId={teamId} /> : null}
      {superAdmin && organizationId ? (
        <OrganizationPolicies key={organizationId} organizationId={organizationId} />
      ) : null}
    </main>
  );
}
