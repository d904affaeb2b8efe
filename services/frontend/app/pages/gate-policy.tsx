// The gate policy in effect for a project, each value with where it comes from (the team's policy, the organization's,
// the deployment's setting or the built-in default): the inheritance docs/gate.md describes.
import { useQuery } from "@tanstack/react-query";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { GATE_FIELDS, GATE_LABELS, gateValue } from "./policy-forms.tsx";

type Policy = Schemas["EffectiveGatePolicy"];
type Field = keyof Policy["sources"];
interface Setting {
  field: Field;
  label: string;
  value: string;
  source: string;
}

const columns: Columns<Setting> = [
  { id: "label", header: "Setting", cell: ({ row }) => row.original.label },
  { id: "value", header: "Value", cell: ({ row }) => row.original.value },
  { id: "source", header: "From", cell: ({ row }) => row.original.source },
];

function settings(p: Policy): Setting[] {
  return GATE_FIELDS.map((field) => ({
    field,
    label: GATE_LABELS[field],
    value: gateValue(p, field),
    source: p.sources[field],
  }));
}

export function GatePolicyInEffect({ projectId }: { projectId: string }) {
  const policy = useQuery({
    queryKey: ["project", projectId, "gate-policy"],
    queryFn: async () =>
      dataOf(await api.GET("/v1/gate-policies/projects/{project_id}", { params: { path: { project_id: projectId } } })),
  });
  if (policy.error) return <ProblemView error={policy.error} />;
  if (!policy.data) return null;
  return (
    <section aria-labelledby="gate-policy" className="card">
      <h2 id="gate-policy">Gate policy in effect</h2>
      <DataTable label="Gate policy" columns={columns} rows={settings(policy.data)} rowId={(s) => s.field} />
    </section>
  );
}
