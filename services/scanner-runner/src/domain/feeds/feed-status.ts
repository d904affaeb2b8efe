// Rules of the feeds' status panels: when a feed is next due, whether a snapshot is stale, and how a URL is shown.

export type FeedName = "kev" | "epss" | "eol" | "malicious";

export const DAY_MS = 86_400_000;

/** How often each feed refreshes when its refresh is on: KEV and EPSS daily, EOL daily, the malicious snapshot weekly. */
export const REFRESH_PERIOD_MS: Readonly<Record<FeedName, number>> = {
  kev: DAY_MS,
  epss: DAY_MS,
  eol: DAY_MS,
  malicious: 7 * DAY_MS,
};

/** A snapshot dated `snapshotDate` (YYYY-MM-DD) is stale once more than `staleDays` whole days old on `now` (UTC). */
export function isSnapshotStale(snapshotDate: string | null, now: Date, staleDays: number): boolean {
  if (!snapshotDate) return true;
  const dated = Date.parse(`${snapshotDate}T00:00:00Z`);
  if (Number.isNaN(dated)) return true;
  const today = Date.parse(`${dayOf(now)}T00:00:00Z`);
  return Math.round((today - dated) / DAY_MS) > staleDays;
}

/** The host a panel shows for a feed URL: never its path or query, which may carry a token. */
export function feedHostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** YYYY-MM-DD of a date, in UTC. */
export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}
