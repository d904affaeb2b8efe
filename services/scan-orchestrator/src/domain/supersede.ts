// The supersede rule of the spec: a scan is superseded when a newer successful scan lands on the same project and
// normalised ref. "Newer" is the order scans were asked for (created_at, then id: UUIDv7 ids sort by creation),
// not the order they finish: an older scan that succeeds after a newer one lands already superseded. Only
// succeeded scans hold an inventory snapshot, so only they are ever superseded. An empty normalised ref is a ref
// like any other: ref-less scans (uploaded SBOMs) supersede each other.

export interface SupersedeCandidate {
  id: string;
  createdAt: Date;
  supersededAt: Date | null;
}

/** Whether `a` was asked for after `b`. */
export function isNewer(
  a: Pick<SupersedeCandidate, "id" | "createdAt">,
  b: Pick<SupersedeCandidate, "id" | "createdAt">,
): boolean {
  const dt = a.createdAt.getTime() - b.createdAt.getTime();
  return dt !== 0 ? dt > 0 : a.id > b.id;
}

export interface SupersedeOutcome {
  /** Succeeded, not yet superseded peers older than the landed scan: they get superseded_at now. */
  supersede: string[];
  /** A newer peer had already succeeded: the landed scan is superseded as it lands. */
  landedSuperseded: boolean;
}

/**
 * What happens when `landed` succeeds, given the other succeeded scans of its project and normalised ref
 * (`peers`, superseded or not).
 */
export function supersedeOnSuccess(
  landed: Pick<SupersedeCandidate, "id" | "createdAt">,
  peers: readonly SupersedeCandidate[],
): SupersedeOutcome {
  const others = peers.filter((p) => p.id !== landed.id);
  return {
    supersede: others.filter((p) => p.supersededAt === null && isNewer(landed, p)).map((p) => p.id),
    landedSuperseded: others.some((p) => isNewer(p, landed)),
  };
}
