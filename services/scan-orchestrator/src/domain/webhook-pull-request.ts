// The pull request a scan is of, as its state news names it (docs/scm.md, "Pull-request comments"): only a scan a
// pull-request or merge-request webhook started, whose metadata the intake wrote, gets its comment automatically. A
// scan started through the API with the same metadata is commented only when someone calls the route.
import type { ScanTrigger } from "./scan-state.ts";

export interface WebhookPullRequest {
  number: number;
  baseRef: string;
}

export function webhookPullRequestOf(
  trigger: ScanTrigger,
  metadata: Readonly<Record<string, unknown>>,
): WebhookPullRequest | null {
  if (trigger !== "webhook") return null;
  const number = metadata.pull_request_number;
  const baseRef = metadata.base_ref;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) return null;
  if (typeof baseRef !== "string" || baseRef === "") return null;
  return { number, baseRef };
}
