// The editors of a gate policy and a license policy, the same for a team and for an organization: a gate policy sets
// only the fields ticked (the others inherit, docs/gate.md); a license policy is replaced whole on every save.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import type { Schemas } from "@sca/api-client";
import { VEX_STATES } from "@sca/vocabulary";
import { field } from "../form.ts";
import { ProblemView } from "../problem-view.tsx";

type GatePolicy = Schemas["GatePolicy"];
type GateInput = Schemas["GatePolicyInput"];
type LicensePolicy = Schemas["LicensePolicy"];
type LicenseInput = Schemas["LicensePolicyInput"];
type Category = LicensePolicy["unknown_license_category"];
type Strategy = LicensePolicy["compound_operator_strategy"]["AND"];

export const GATE_FIELDS = [
  "approval_required_statuses",
  "epss_threshold",
  "malicious_blocks",
  "reachable_critical_only",
] as const;
export const GATE_LABELS: Record<(typeof GATE_FIELDS)[number], string> = {
  approval_required_statuses: "Statuses a second person confirms",
  epss_threshold: "EPSS threshold",
  malicious_blocks: "Malicious components block",
  reachable_critical_only: "Only reachable criticals count",
};
const CATEGORIES = ["allowed", "conditional", "forbidden"] as const;
const STRATEGIES = ["most_restrictive", "least_restrictive"] as const;

export function gateValue(p: Pick<GatePolicy, (typeof GATE_FIELDS)[number]>, f: (typeof GATE_FIELDS)[number]): string {
  switch (f) {
    case "approval_required_statuses":
      return p.approval_required_statuses?.join(", ") || "none";
    case "epss_threshold":
      return p.epss_threshold === null ? "off" : String(p.epss_threshold);
    default:
      return p[f] ? "yes" : "no";
  }
}

function useSave<T>(save: (body: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: save, onSuccess: () => queryClient.invalidateQueries({ queryKey: ["policies"] }) });
}

function gateInput(form: FormData): GateInput {
  const set = (f: string) => form.get(`set_${f}`) === "on";
  const body: GateInput = {};
  if (set("approval_required_statuses"))
    body.approval_required_statuses = form.getAll(
      "approval_required_statuses",
    ) as GateInput["approval_required_statuses"];
  if (set("epss_threshold"))
    body.epss_threshold = field(form, "epss_threshold") ? Number(field(form, "epss_threshold")) : null;
  if (set("malicious_blocks")) body.malicious_blocks = field(form, "malicious_blocks") === "yes";
  if (set("reachable_critical_only")) body.reachable_critical_only = field(form, "reachable_critical_only") === "yes";
  return body;
}

export function GatePolicyForm({
  label,
  policy,
  save,
}: {
  label: string;
  policy: GatePolicy | null;
  save: (body: GateInput) => Promise<unknown>;
}) {
  const saving = useSave(save);
  const isSet = (f: string) => policy?.set_fields.includes(f as GatePolicy["set_fields"][number]) ?? false;
  const yesNo = (name: "malicious_blocks" | "reachable_critical_only", fallback: boolean) => (
    <select name={name} aria-label={GATE_LABELS[name]} defaultValue={(policy?.[name] ?? fallback) ? "yes" : "no"}>
      <option>yes</option>
      <option>no</option>
    </select>
  );
  const setHere = (f: (typeof GATE_FIELDS)[number]) => (
    <label className="inline">
      <input type="checkbox" name={`set_${f}`} defaultChecked={isSet(f)} /> Set {GATE_LABELS[f].toLowerCase()} here
    </label>
  );
  return (
    <form
      className="card"
      aria-label={label}
      key={policy?.version ?? 0}
      onSubmit={(e: FormEvent<HTMLFormElement>) => {
        e.preventDefault();
        saving.mutate(gateInput(new FormData(e.currentTarget)));
      }}
    >
      <h3>{label}</h3>
      <p className="muted">A setting left unticked is not set here: it is inherited.</p>
      <fieldset>
        <legend>{GATE_LABELS.approval_required_statuses}</legend>
        {setHere("approval_required_statuses")}
        {VEX_STATES.map((s) => (
          <label className="inline" key={s}>
            <input
              type="checkbox"
              name="approval_required_statuses"
              value={s}
              defaultChecked={policy?.approval_required_statuses?.includes(s) ?? false}
            />{" "}
            {s}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>{GATE_LABELS.epss_threshold}</legend>
        {setHere("epss_threshold")}
        <label>
          Threshold (0 to 1, empty turns the check off)
          <input
            name="epss_threshold"
            type="number"
            min={0}
            max={1}
            step="any"
            defaultValue={policy?.epss_threshold ?? ""}
          />
        </label>
      </fieldset>
      <fieldset>
        <legend>{GATE_LABELS.malicious_blocks}</legend>
        {setHere("malicious_blocks")}
        {yesNo("malicious_blocks", true)}
      </fieldset>
      <fieldset>
        <legend>{GATE_LABELS.reachable_critical_only}</legend>
        {setHere("reachable_critical_only")}
        {yesNo("reachable_critical_only", false)}
      </fieldset>
      <button type="submit" disabled={saving.isPending}>
        Save the gate policy
      </button>
      {saving.isSuccess ? <p role="status">Saved.</p> : null}
      <ProblemView error={saving.error} />
    </form>
  );
}

/** `MIT=allowed` lines. */
function overridesOf(text: string): Record<string, Category> {
  const pairs = text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => line.split("=").map((part) => part.trim()) as [string, Category]);
  return Object.fromEntries(pairs);
}

/** `spdx id | reason | purl | expires (RFC 3339)` lines, the last two optional. */
function exceptionsOf(text: string): NonNullable<LicenseInput["license_exceptions"]> {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [spdx_id = "", reason = "", purl = "", expires = ""] = line.split("|").map((part) => part.trim());
      return { spdx_id, reason, component_purl: purl || null, expires_at: expires || null };
    });
}

function licenseInput(form: FormData): LicenseInput {
  const strategy = (op: string) => field(form, `strategy_${op}`) as Strategy;
  return {
    name: field(form, "name") || null,
    enabled: form.get("enabled") === "on",
    unknown_license_category: field(form, "unknown_license_category") as Category,
    category_overrides: overridesOf(field(form, "category_overrides")),
    license_exceptions: exceptionsOf(field(form, "license_exceptions")),
    compound_operator_strategy: { AND: strategy("AND"), OR: strategy("OR"), WITH: strategy("WITH") },
  };
}

export function LicensePolicyForm({
  label,
  policy,
  save,
}: {
  label: string;
  /** The values the form starts from (the policy in force, which may be inherited), null for the defaults. */
  policy: LicensePolicy | null;
  save: (body: LicenseInput) => Promise<unknown>;
}) {
  const saving = useSave(save);
  const strategies = policy?.compound_operator_strategy ?? {
    AND: "most_restrictive",
    OR: "least_restrictive",
    WITH: "most_restrictive",
  };
  return (
    <form
      className="card"
      aria-label={label}
      key={`${policy?.id ?? "none"}-${policy?.version ?? 0}`}
      onSubmit={(e: FormEvent<HTMLFormElement>) => {
        e.preventDefault();
        saving.mutate(licenseInput(new FormData(e.currentTarget)));
      }}
    >
      <h3>{label}</h3>
      <label>
        Name
        <input name="name" maxLength={255} defaultValue={policy?.name ?? ""} />
      </label>
      <label className="inline">
        <input type="checkbox" name="enabled" defaultChecked={policy?.enabled ?? true} /> Enabled
      </label>
      <label>
        Category of an unknown license
        <select name="unknown_license_category" defaultValue={policy?.unknown_license_category ?? "conditional"}>
          {CATEGORIES.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
      </label>
      <label>
        Category overrides (one <code>license=category</code> a line)
        <textarea
          name="category_overrides"
          defaultValue={Object.entries(policy?.category_overrides ?? {})
            .map(([id, c]) => `${id}=${c}`)
            .join("\n")}
        />
      </label>
      <label>
        Exceptions (one <code>license | reason | package purl | expires</code> a line; the last two may stay empty)
        <textarea
          name="license_exceptions"
          defaultValue={(policy?.license_exceptions ?? [])
            .map((x) => [x.spdx_id, x.reason, x.component_purl ?? "", x.expires_at ?? ""].join(" | "))
            .join("\n")}
        />
      </label>
      {(["AND", "OR", "WITH"] as const).map((op) => (
        <label key={op}>
          Compound {op}
          <select name={`strategy_${op}`} defaultValue={strategies[op]}>
            {STRATEGIES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      ))}
      <button type="submit" disabled={saving.isPending}>
        Save the license policy
      </button>
      {saving.isSuccess ? <p role="status">Saved.</p> : null}
      <ProblemView error={saving.error} />
    </form>
  );
}
