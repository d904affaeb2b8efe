// The release diff's rules (the spec's "Release diff": base and target, both required, equal allowed). Components
// are compared by key (the canonical purl, else type/group/name@version): a key in one scan only is added or
// removed, unless its identity (the purl without its version, else type, group and name) has exactly one such
// component on each side: then the pair is one component whose version changed. A key in both scans whose license
// differs is a license change. A vulnerability is added or removed when only one scan has an open finding of it. The
// set differences run in SQL (store/inventory/release-diff.ts); each list answers at
// most DIFF_LIST_CAP rows, the counts are always whole.

export const DIFF_LIST_CAP = 1000;

export type ChangeKind = "version" | "license";

export interface ComparedComponent {
  version: string | null;
  license: string | null;
}

/** What differs between the base's and the target's component of one identity, in a fixed order. */
export function changesOf(base: ComparedComponent, target: ComparedComponent): ChangeKind[] {
  const changes: ChangeKind[] = [];
  if (base.version !== target.version) changes.push("version");
  if (base.license !== target.license) changes.push("license");
  return changes;
}

/** How many rows each list of the diff holds in all. */
export interface DiffTotals {
  componentsAdded: number;
  componentsRemoved: number;
  componentsChanged: number;
  licensesAdded: number;
  licensesRemoved: number;
  vulnerabilitiesAdded: number;
  vulnerabilitiesRemoved: number;
}

export interface DiffSummary extends DiffTotals {
  componentsUnchanged: number;
}

/** The summary: the totals, and the target's components neither added nor changed. */
export function diffSummary(totals: DiffTotals, targetComponentCount: number): DiffSummary {
  return {
    ...totals,
    componentsUnchanged: Math.max(0, targetComponentCount - totals.componentsAdded - totals.componentsChanged),
  };
}

/** Whether some list held more rows than the answer carries. */
export function diffTruncated(totals: DiffTotals, cap: number = DIFF_LIST_CAP): boolean {
  return Object.values(totals).some((total) => total > cap);
}

/** An empty diff: base and target are the same scan. */
export const NO_CHANGES: DiffTotals = {
  componentsAdded: 0,
  componentsRemoved: 0,
  componentsChanged: 0,
  licensesAdded: 0,
  licensesRemoved: 0,
  vulnerabilitiesAdded: 0,
  vulnerabilitiesRemoved: 0,
};
