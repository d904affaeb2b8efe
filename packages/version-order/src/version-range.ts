// Version ranges read in an ecosystem's order: comparators (`>=2.0,<2.15`, as PEP 440 and OSV write them), Maven's
// and NuGet's intervals (`[2.0,2.15)`, `(,1.0],[1.2,)`), and alternatives joined by `||` (npm's union). The range
// text is ecosystem-neutral; a version is placed by the scheme of its own ecosystem, so one range asks the same
// question of every ecosystem in that ecosystem's order.
import type { VersionScheme } from "./schemes.ts";

export type RangeOperator = "<" | "<=" | ">" | ">=" | "=" | "!=";
export interface RangeBound {
  op: RangeOperator;
  version: string;
}
/** Alternatives (any holds), each a list of bounds (all hold). */
export type VersionRange = readonly (readonly RangeBound[])[];

/**
 * Whether the text means a range rather than one exact version. npm's `^`, `~` and `*` count as range syntax so
 * that parseVersionRange refuses them rather than a search for a version named `^1.2`.
 */
export const isVersionRange = (text: string): boolean => /^\s*[<>=!([^~*]/.test(text) || text.includes("||");

const COMPARATOR = /^(<=|>=|==|!=|<|>|=)\s*([^\s<>=!,]+)$/;
const INTERVAL = /^([[(])\s*([^,\s]*)\s*(?:,\s*([^\])\s]*)\s*)?([\])])$/;

/** One interval as bounds; null when malformed (an exact `[1.2]` needs both brackets square). */
function intervalBounds(text: string): RangeBound[] | null {
  const m = INTERVAL.exec(text);
  if (!m) return null;
  const [, open, low, high, close] = m;
  if (high === undefined) return open === "[" && close === "]" && low ? [{ op: "=", version: low }] : null;
  const bounds: RangeBound[] = [];
  if (low) bounds.push({ op: open === "[" ? ">=" : ">", version: low });
  if (high) bounds.push({ op: close === "]" ? "<=" : "<", version: high });
  return bounds.length ? bounds : null;
}

/** Maven's union of intervals, `(,1.0],[1.2,)`: split after each closing bracket. */
function intervals(text: string): RangeBound[][] | null {
  const parts = text.match(/[[(][^\])]*[\])]\s*(,|$)/g);
  if (!parts || parts.join("").replace(/\s/g, "") !== text.replace(/\s/g, "")) return null;
  const out: RangeBound[][] = [];
  for (const part of parts) {
    const bounds = intervalBounds(part.trim().replace(/,$/, "").trim());
    if (!bounds) return null;
    out.push(bounds);
  }
  return out;
}

/** The range the text writes, or null when it is not one (an empty part, an unknown operator, an open bracket). */
export function parseVersionRange(text: string): VersionRange | null {
  const alternatives: RangeBound[][] = [];
  for (const alternative of text.split("||").map((a) => a.trim())) {
    if (alternative === "") return null;
    if (/^[[(]/.test(alternative)) {
      const union = intervals(alternative);
      if (!union) return null;
      alternatives.push(...union);
      continue;
    }
    const bounds: RangeBound[] = [];
    for (const comparator of alternative.split(",").map((c) => c.trim())) {
      const m = COMPARATOR.exec(comparator);
      if (!m) return null;
      bounds.push({ op: m[1] === "==" ? "=" : (m[1] as RangeOperator), version: m[2]! });
    }
    alternatives.push(bounds);
  }
  return alternatives;
}

const HOLDS: Record<RangeOperator, (c: number) => boolean> = {
  "<": (c) => c < 0,
  "<=": (c) => c <= 0,
  ">": (c) => c > 0,
  ">=": (c) => c >= 0,
  "=": (c) => c === 0,
  "!=": (c) => c !== 0,
};

/**
 * Whether the version is in the range, ordered by the scheme. A version, or a bound of an alternative, the scheme
 * cannot read is never in range (that alternative does not hold): an order we cannot tell is not a match.
 */
export function inVersionRange<P>(range: VersionRange, scheme: VersionScheme<P>, version: string): boolean {
  const v = scheme.parse(version);
  if (v === null) return false;
  return range.some((bounds) =>
    bounds.every((b) => {
      const bound = scheme.parse(b.version);
      return bound !== null && HOLDS[b.op](scheme.compare(v, bound));
    }),
  );
}
