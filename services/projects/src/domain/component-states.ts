// The enrichment states the scanner-runner records on a snapshot's components (docs/inventory.md, "Component
// states"): which words each state takes and how long its detail may be. A state the runner did not assess stays
// null, so the list's filters read "never assessed" as nothing known to be wrong.
import type { FieldViolation } from "@sca/problem";

export const EOL_STATES = ["eol", "supported", "unknown"] as const;
export const CURRENCY_STATES = ["current", "outdated", "unknown"] as const;
export const MALICIOUS_STATES = ["flagged", "clear"] as const;

const PURL_MAX = 4096;
const DETAIL_MAX = 1024;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** One purl's states, as the write takes them (null: not assessed). */
export interface ComponentStateRow {
  purl: string;
  eolState: string | null;
  eolCycle: string | null;
  eolDate: string | null;
  eolProduct: string | null;
  eolSource: string | null;
  currencyState: string | null;
  currencyLatest: string | null;
  currencyLatestReleaseDate: string | null;
  maliciousState: string | null;
  maliciousId: string | null;
  maliciousSource: string | null;
}

type StateInput = { [K in keyof ComponentStateRow]?: string | undefined };

/**
 * The states checked: each state one of its words, dates YYYY-MM-DD, texts bounded, each purl once (a repeat is a
 * violation: the runner sends one entry per distinct purl). Violations are pushed to `v`.
 */
export function checkedComponentStates(states: readonly StateInput[], v: FieldViolation[]): ComponentStateRow[] {
  const seen = new Set<string>();
  const out: ComponentStateRow[] = [];
  states.forEach((s, i) => {
    const at = (field: string) => `states[${i}].${field}`;
    const purl = s.purl ?? "";
    if (!purl || purl.length > PURL_MAX) v.push({ path: at("purl"), message: `must be 1..${PURL_MAX} characters` });
    else if (seen.has(purl)) v.push({ path: at("purl"), message: "is named twice" });
    seen.add(purl);
    const word = (field: string, value: string | undefined, words: readonly string[]) => {
      if (value !== undefined && !words.includes(value))
        v.push({ path: at(field), message: `must be one of ${words.join(", ")}` });
      return value ?? null;
    };
    const detail = (field: string, value: string | undefined) => {
      if (value !== undefined && (!value || value.length > DETAIL_MAX))
        v.push({ path: at(field), message: `must be 1..${DETAIL_MAX} characters` });
      return value ?? null;
    };
    const date = (field: string, value: string | undefined) => {
      if (value !== undefined && !(DATE.test(value) && !Number.isNaN(Date.parse(value))))
        v.push({ path: at(field), message: "must be a date (YYYY-MM-DD)" });
      return value ?? null;
    };
    out.push({
      purl,
      eolState: word("eol_state", s.eolState, EOL_STATES),
      eolCycle: detail("eol_cycle", s.eolCycle),
      eolDate: date("eol_date", s.eolDate),
      eolProduct: detail("eol_product", s.eolProduct),
      eolSource: detail("eol_source", s.eolSource),
      currencyState: word("currency_state", s.currencyState, CURRENCY_STATES),
      currencyLatest: detail("currency_latest", s.currencyLatest),
      currencyLatestReleaseDate: date("currency_latest_release_date", s.currencyLatestReleaseDate),
      maliciousState: word("malicious_state", s.maliciousState, MALICIOUS_STATES),
      maliciousId: detail("malicious_id", s.maliciousId),
      maliciousSource: detail("malicious_source", s.maliciousSource),
    });
  });
  return out;
}
