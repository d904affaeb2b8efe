// The source host's REST API as an installed app reaches it (docs/scm.md, "App credentials"): a JWT signed with the
// app's private key (RS256, iss = app id, 9 minutes) is exchanged at POST /app/installations/{id}/access_tokens for
// an installation token, kept until a minute before it expires; the repository calls carry that token. The paths are
// host A's (GitHub's and Gitea's shared REST shapes), except the branch creation, where the two differ: GitHub's
// POST /repos/{owner}/{repo}/git/refs first, Gitea's POST /repos/{owner}/{repo}/branches on a host that does not
// serve it (remembered per host). Failures carry only the host's HTTP status, never its body or a token.
import { createPrivateKey, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";

/** A refused or unanswered host call: `status` is the host's HTTP status, null when it did not answer in time. */
export class SourceHostError extends Error {
  readonly status: number | null;
  constructor(status: number | null, what: string) {
    super(status === null ? `${what}: the source host did not answer` : `${what}: the source host answered ${status}`);
    this.status = status;
  }
}

export interface InstalledApp {
  credentialId: string;
  appId: string;
  privateKeyPem: string;
  installationId: string;
}

export interface RepositoryFile {
  text: string;
  sha: string;
}

export interface PullRequestRef {
  number: number;
  url: string;
}

export interface IssueComment {
  id: number;
  body: string;
}

/** Parses a PEM private key (PKCS#1 as hosts hand them out, or PKCS#8); null when it is not an RSA key. */
export function rsaPrivateKey(pem: string): KeyObject | null {
  try {
    const key = createPrivateKey(pem);
    return key.asymmetricKeyType === "rsa" ? key : null;
  } catch {
    return null;
  }
}

export interface SourceHost {
  repository(app: InstalledApp, fullName: string): Promise<RepositoryApi>;
}

export function sourceHost(apiUrl: string, timeoutMs: number): SourceHost {
  const base = apiUrl.replace(/\/+$/, "");
  const tokens = new Map<string, { token: string; renewAt: number }>();
  const flavour: HostFlavour = { branchesRoute: false };

  async function call(method: string, path: string, what: string, auth: string, body?: unknown): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: {
          accept: "application/vnd.github+json",
          authorization: auth,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw new SourceHostError(null, what);
    }
    return res;
  }

  async function installationToken(app: InstalledApp): Promise<string> {
    const cacheKey = `${app.credentialId}:${app.installationId}`;
    const held = tokens.get(cacheKey);
    if (held && held.renewAt > Date.now()) return held.token;
    const key = rsaPrivateKey(app.privateKeyPem);
    if (!key) throw new SourceHostError(null, "the app's private key is not an RSA key");
    const now = Math.floor(Date.now() / 1000);
    // Backdated a minute against clock skew, as the host's documentation advises; at most ten minutes long.
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: "RS256" })
      .setIssuer(app.appId)
      .setIssuedAt(now - 60)
      .setExpirationTime(now + 540)
      .sign(key);
    const what = "installation token";
    const res = await call(
      "POST",
      `/app/installations/${encodeURIComponent(app.installationId)}/access_tokens`,
      what,
      `Bearer ${jwt}`,
    );
    if (!res.ok) throw new SourceHostError(res.status, what);
    const answer = (await res.json()) as { token: string; expires_at?: string };
    const expiresAt = answer.expires_at ? Date.parse(answer.expires_at) : Date.now() + 3_600_000;
    tokens.set(cacheKey, { token: answer.token, renewAt: expiresAt - 60_000 });
    return answer.token;
  }

  return {
    async repository(app, fullName) {
      const token = await installationToken(app);
      return repositoryApi(
        fullName,
        (method, path, what, body) => call(method, `/repos/${fullName}${path}`, what, `token ${token}`, body),
        flavour,
      );
    },
  };
}

type RepoCall = (method: string, path: string, what: string, body?: unknown) => Promise<Response>;

/** What the host showed it is: `branchesRoute` once it answered Gitea's branch creation after refusing git/refs. */
interface HostFlavour {
  branchesRoute: boolean;
}

/** A path of branch `name`, each segment escaped (branch names may hold slashes). */
const branchPath = (name: string) => name.split("/").map(encodeURIComponent).join("/");

async function json<T>(res: Response, what: string): Promise<T> {
  if (!res.ok) throw new SourceHostError(res.status, what);
  return (await res.json()) as T;
}

export type RepositoryApi = ReturnType<typeof repositoryApi>;

function repositoryApi(fullName: string, call: RepoCall, flavour: HostFlavour) {
  /** Gitea's branch creation; false when the branch exists (409). */
  async function createBranchGitea(name: string, from: string): Promise<boolean> {
    const what = "create the branch";
    const res = await call("POST", "/branches", what, { new_branch_name: name, old_ref_name: from });
    if (res.status === 409) return false;
    await json(res, what);
    return true;
  }

  return {
    fullName,
    /** The repository's default branch; null when the installation cannot see it. */
    async defaultBranch(): Promise<string | null> {
      const res = await call("GET", "", "repository");
      if (res.status === 404) return null;
      return (await json<{ default_branch: string }>(res, "repository")).default_branch;
    },
    /** A file at `ref`; null when there is none. */
    async file(path: string, ref: string): Promise<RepositoryFile | null> {
      const res = await call("GET", `/contents/${path}?ref=${encodeURIComponent(ref)}`, `read ${path}`);
      if (res.status === 404) return null;
      const answer = await json<{ content?: string; sha: string; type?: string }>(res, `read ${path}`);
      if (answer.type !== undefined && answer.type !== "file") return null;
      return { text: Buffer.from(answer.content ?? "", "base64").toString("utf8"), sha: answer.sha };
    },
    /**
     * Makes branch `name` at the head of branch `from`; false when it exists already. As GitHub documents it: the
     * base's commit (GET /branches/{from}: GitHub answers commit.sha, Gitea commit.id), then POST /git/refs
     * (422 "Reference already exists" when it is there). A host answering 404 or 405 there (Gitea has no such write)
     * is asked at Gitea's POST /branches instead; once that answered as Gitea does, the host is remembered as Gitea.
     */
    async createBranch(name: string, from: string): Promise<boolean> {
      if (flavour.branchesRoute) return createBranchGitea(name, from);
      const read = "read the base branch";
      const base = await json<{ commit: { sha?: string; id?: string } }>(
        await call("GET", `/branches/${branchPath(from)}`, read),
        read,
      );
      const sha = base.commit.sha ?? base.commit.id;
      if (!sha) throw new SourceHostError(null, `${read}: no commit`);
      const what = "create the branch";
      const res = await call("POST", "/git/refs", what, { ref: `refs/heads/${name}`, sha });
      if (res.status === 404 || res.status === 405) {
        const made = await createBranchGitea(name, from);
        flavour.branchesRoute = true;
        return made;
      }
      if (res.status === 422) {
        const answer = (await res.json().catch(() => ({}))) as { message?: string };
        if (/already exists/i.test(answer.message ?? "")) return false;
      }
      await json(res, what);
      return true;
    },
    async updateFile(path: string, change: { branch: string; text: string; sha: string; message: string }) {
      const what = `commit ${path}`;
      await json(
        await call("PUT", `/contents/${path}`, what, {
          branch: change.branch,
          sha: change.sha,
          message: change.message,
          content: Buffer.from(change.text, "utf8").toString("base64"),
        }),
        what,
      );
    },
    /** The open pull request from `head`, if any. */
    async openPullRequestFrom(head: string): Promise<PullRequestRef | null> {
      const what = "list pull requests";
      const open = await json<{ number: number; html_url: string; head: { ref: string } }[]>(
        await call("GET", "/pulls?state=open&limit=50&per_page=50", what),
        what,
      );
      const found = open.find((pr) => pr.head.ref === head);
      return found ? { number: found.number, url: found.html_url } : null;
    },
    async createPullRequest(pr: { title: string; body: string; head: string; base: string }): Promise<PullRequestRef> {
      const what = "open the pull request";
      const made = await json<{ number: number; html_url: string }>(await call("POST", "/pulls", what, pr), what);
      return { number: made.number, url: made.html_url };
    },
    /** The pull request's state: open, closed or merged. */
    async pullRequestState(n: number): Promise<"open" | "closed" | "merged"> {
      const what = "read the pull request";
      const pr = await json<{ state: string; merged?: boolean }>(await call("GET", `/pulls/${n}`, what), what);
      if (pr.merged) return "merged";
      return pr.state === "open" ? "open" : "closed";
    },
    async comments(issue: number): Promise<IssueComment[]> {
      const what = "list comments";
      return json<IssueComment[]>(await call("GET", `/issues/${issue}/comments?limit=50&per_page=100`, what), what);
    },
    async createComment(issue: number, body: string): Promise<IssueComment> {
      const what = "comment";
      return json<IssueComment>(await call("POST", `/issues/${issue}/comments`, what, { body }), what);
    },
    async updateComment(id: number, body: string): Promise<void> {
      const what = "update the comment";
      await json(await call("PATCH", `/issues/comments/${id}`, what, { body }), what);
    },
  };
}
