// What a repository webhook asks for, read from the two hosts' public payloads (docs/scm.md, "Payload fields"):
// which repository (its addresses, matched with projects' git_url by projects), which event, and which ref to scan.
// Host A (`scm_a`) names the event in X-GitHub-Event (its compatible hosts, Gitea among them, send it too); host B
// (`scm_b`) in the body's object_kind (and X-Gitlab-Event). Anything else is acknowledged and starts nothing.

export type WebhookProvider = "scm_a" | "scm_b";

export interface ScanAsked {
  kind: "scan";
  event: "push" | "pull_request";
  /** A fully qualified ref: refs/heads/..., refs/tags/..., refs/pull/<n>/head, refs/merge-requests/<iid>/head. */
  ref: string;
  /** The repository's clone, web and ssh addresses as the payload gives them. */
  repositoryUrls: string[];
  /** owner/name (host B: path_with_namespace). */
  repository: string;
  pullRequestNumber?: number;
  /** The pull request's base branch, fully qualified. */
  baseRef?: string;
}

export interface NothingAsked {
  kind: "ignored";
  /** Why, as the 202 answer says it. */
  reason: string;
  /** The repository's addresses when the payload names one (its credential is still checked), else empty. */
  repositoryUrls: string[];
}

export type WebhookReading = ScanAsked | NothingAsked | { kind: "invalid"; detail: string };

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const positiveInt = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : undefined;
const ZERO_COMMIT = /^0+$/;

/** The pull-request actions that change what the PR's head holds: scanned. Others (closed, labeled) are not. */
const SCM_A_PR_ACTIONS = new Set(["opened", "reopened", "synchronize", "synchronized", "edited"]);
const SCM_B_MR_ACTIONS = new Set(["open", "reopen", "update"]);

function urls(...values: unknown[]): string[] {
  return [...new Set(values.map(text).filter((v): v is string => v !== undefined))];
}

const heads = (branch: string) => (branch.startsWith("refs/") ? branch : `refs/heads/${branch}`);

function scmA(event: string, body: Json): WebhookReading {
  const repo = body.repository;
  const repositoryUrls = isObject(repo) ? urls(repo.clone_url, repo.html_url, repo.ssh_url, repo.git_url) : [];
  if (event !== "push" && event !== "pull_request")
    return { kind: "ignored", reason: event === "ping" ? "ping" : `event ${event || "unnamed"}`, repositoryUrls };
  if (!isObject(repo)) return { kind: "invalid", detail: "The payload names no repository." };
  const repository = text(repo.full_name) ?? "";
  if (repositoryUrls.length === 0) return { kind: "invalid", detail: "The payload's repository has no address." };
  if (event === "push") {
    const ref = text(body.ref);
    if (!ref?.startsWith("refs/")) return { kind: "invalid", detail: "The push names no ref." };
    if (body.deleted === true || ZERO_COMMIT.test(text(body.after) ?? ""))
      return { kind: "ignored", reason: "ref deleted", repositoryUrls };
    return { kind: "scan", event: "push", ref, repositoryUrls, repository };
  }
  const action = text(body.action) ?? "";
  if (!SCM_A_PR_ACTIONS.has(action))
    return { kind: "ignored", reason: `pull_request ${action || "without action"}`, repositoryUrls };
  const pr = body.pull_request;
  const number = positiveInt(body.number) ?? (isObject(pr) ? positiveInt(pr.number) : undefined);
  if (number === undefined || !isObject(pr)) return { kind: "invalid", detail: "The pull request has no number." };
  const base = isObject(pr.base) ? text(pr.base.ref) : undefined;
  return {
    kind: "scan",
    event: "pull_request",
    ref: `refs/pull/${number}/head`,
    repositoryUrls,
    repository,
    pullRequestNumber: number,
    ...(base ? { baseRef: heads(base) } : {}),
  };
}

function scmB(body: Json): WebhookReading {
  const kind = text(body.object_kind) ?? "";
  const project = body.project;
  const repositoryUrls = isObject(project)
    ? urls(project.git_http_url, project.web_url, project.git_ssh_url, project.http_url)
    : [];
  if (kind !== "push" && kind !== "tag_push" && kind !== "merge_request")
    return { kind: "ignored", reason: `event ${kind || "unnamed"}`, repositoryUrls };
  if (!isObject(project)) return { kind: "invalid", detail: "The payload names no project." };
  const repository = text(project.path_with_namespace) ?? "";
  if (repositoryUrls.length === 0) return { kind: "invalid", detail: "The payload's project has no address." };
  if (kind !== "merge_request") {
    const ref = text(body.ref);
    if (!ref?.startsWith("refs/")) return { kind: "invalid", detail: "The push names no ref." };
    if (body.checkout_sha === null || ZERO_COMMIT.test(text(body.after) ?? ""))
      return { kind: "ignored", reason: "ref deleted", repositoryUrls };
    return { kind: "scan", event: "push", ref, repositoryUrls, repository };
  }
  const mr = body.object_attributes;
  if (!isObject(mr)) return { kind: "invalid", detail: "The merge request has no attributes." };
  const action = text(mr.action) ?? "";
  if (!SCM_B_MR_ACTIONS.has(action))
    return { kind: "ignored", reason: `merge_request ${action || "without action"}`, repositoryUrls };
  const iid = positiveInt(mr.iid);
  if (iid === undefined) return { kind: "invalid", detail: "The merge request has no iid." };
  const base = text(mr.target_branch);
  return {
    kind: "scan",
    event: "pull_request",
    ref: `refs/merge-requests/${iid}/head`,
    repositoryUrls,
    repository,
    pullRequestNumber: iid,
    ...(base ? { baseRef: heads(base) } : {}),
  };
}

/** The reading of a parsed body; `event` is host A's X-GitHub-Event (host B names it in the body). */
export function readWebhook(provider: WebhookProvider, event: string, body: unknown): WebhookReading {
  if (!isObject(body)) return { kind: "invalid", detail: "The body is not a JSON object." };
  return provider === "scm_a" ? scmA(event.trim().toLowerCase(), body) : scmB(body);
}
