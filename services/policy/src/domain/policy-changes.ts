// Which of a policy's fields an upsert changes, by their API names: what the audit event of an update names (never
// the values).
import { isDeepStrictEqual } from "node:util";

/**
 * The API names of the columns whose value differs, each once (two columns may stand for one field); jsonb keeps
 * no key order, so objects compare by content.
 */
export function changedFieldNames<Columns extends object>(
  current: Columns,
  next: Columns,
  apiNames: Record<keyof Columns, string>,
): string[] {
  const names = (Object.keys(apiNames) as (keyof Columns)[])
    .filter((k) => !isDeepStrictEqual(current[k], next[k]))
    .map((k) => apiNames[k]);
  return [...new Set(names)];
}
