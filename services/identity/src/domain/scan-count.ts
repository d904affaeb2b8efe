// Whose scan_count a scan's news raises (docs/identity.md): a person's scan_count is the number of scans they asked
// for. A scan's creation is the one ScanStateChanged with an empty previous_status, published once per scan; scans
// without a requesting person (API keys, webhooks, schedules) count for nobody.
import { UUID } from "@sca/ids";

export interface ScanNews {
  previousStatus: string;
  requestedByUserId?: string | undefined;
}

/** The person whose count the news raises (lower case), or null when it raises none. */
export function countedRequester(news: ScanNews): string | null {
  const userId = news.requestedByUserId;
  if (news.previousStatus !== "" || !userId || !UUID.test(userId)) return null;
  return userId.toLowerCase();
}
