// Source-host apps and npm remediation pull requests end to end (docs/scm.md): a real gateway, identity and projects;
// the project's newest snapshot made as the scanner-runner hands it over (projects' findings fixture: lodash 4.17.20,
// fixed in 4.17.21); the run's Gitea as the repository, behind the test kit's app-token exchange (Gitea has no
// GitHub-style apps), which projects reaches as SCM_API_URL; the app host also answers GitHub's branch creation
// (POST git/refs) until a test turns that off to see the portal fall back to Gitea's. The pull request is read back
// from Gitea. Projects
// reconciles records left `creating` every few hundred milliseconds here (its seam; ten minutes in a deployment), so
// the test sees a crash's leftovers settled without waiting.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import {
  callAs,
  eventually,
  fixturesOf,
  ingestArtefact,
  sharedGitea,
  startGiteaAppHost,
  type GiteaAppHost,
  type SharedGitea,
} from "@sca/testkit";
import { startProjectsStack, type ProjectsStack } from "./projects-stack.ts";

let s: ProjectsStack;
let gitea: SharedGitea;
let appHost: GiteaAppHost;
let dir: string;
let teamId: string;
let admin: string;
let developer: string;
let outsider: string;

const MANIFEST = `{
  "name": "remedied",
  "version": "1.0.0",
  "dependencies": {
    "lodash": "^4.17.20",
    "left-pad": "^1.3.0"
  }
}
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-gw-remediation-"));
  gitea = await sharedGitea();
  appHost = await startGiteaAppHost(gitea);
  s = await startProjectsStack(
    { ARTEFACT_DIR: dir, SCM_API_URL: appHost.apiUrl, SCM_HTTP_TIMEOUT_MS: "5000" },
    {},
    { remediationReconcileEveryMs: 300 },
  );
  const team = await s.team();
  teamId = team.id;
  admin = (await s.person([[teamId, "team_admin"]])).token;
  developer = (await s.person([[teamId, "developer"]])).token;
  outsider = (await s.person([[(await s.team()).id, "team_admin"]])).token;
}, 120_000);

afterAll(async () => {
  await s?.close();
  await appHost?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A project of the team with the findings fixture as its newest snapshot, and a Gitea repository holding MANIFEST. */
async function vulnerableProject(): Promise<{ projectId: string; repo: string }> {
  const slug = `rem-${randomUUID().slice(0, 8)}`;
  const repo = await gitea.createRepo(slug);
  await gitea.push(repo, "main", { "package.json": MANIFEST }, "Add package.json");
  const created = await s.request("POST", "/v1/projects", {
    bearer: admin,
    body: { name: `Remediation ${slug}`, slug, team_id: teamId, git_url: gitea.cloneUrl(repo), default_branch: "main" },
  });
  expect(created.status).toBe(201);
  const projectId = created.json.id as string;
  const fixtures = await fixturesOf("projects");
  const runner = await callAs.service("scanner-runner");
  const scanId = await ingestArtefact(
    s.projects.client(InventoryService),
    new DirectoryArtefactStore(dir),
    projectId,
    fixtures.findingsArtefact(),
    { caller: runner },
  );
  await s.projects.client(VulnerabilityMatchService).recordScanMatches(fixtures.scanMatches(projectId, scanId), runner);
  return { projectId, repo };
}

async function registerApp(): Promise<string> {
  const made = await s.request("POST", `/v1/scm/apps?team_id=${teamId}`, {
    bearer: admin,
    body: {
      app_id: appHost.appId,
      private_key: appHost.privateKeyPem,
      app_slug: "sca-remediation",
      webhook_secret: "whs",
    },
  });
  expect(made.status).toBe(201);
  return made.json.id as string;
}

async function link(appId: string, projectId: string, repo: string) {
  return s.request("POST", `/v1/scm/apps/${appId}/installations`, {
    bearer: admin,
    body: { installation_id: "77", account_login: gitea.user, project_id: projectId, repository_full_name: repo },
  });
}

/** The statuses the app host answered to POSTs at `/repos/{repo}{tail}`, in order. */
const posts = (repo: string, tail: string) =>
  appHost.served.filter((c) => c.method === "POST" && c.path === `/repos/${repo}${tail}`).map((c) => c.status);

const openPr = (projectId: string, bearer = admin, body?: unknown) =>
  s.request("POST", `/v1/projects/${projectId}/remediation/npm/pull-request`, { bearer, body });

describe("source-host app credentials", () => {
  it("registers with write-only secrets, lists, fetches, links installations and revokes softly", async () => {
    const body = { app_id: "12", private_key: appHost.privateKeyPem, webhook_secret: "hook-secret" };
    expect((await s.request("POST", `/v1/scm/apps?team_id=${teamId}`, { bearer: developer, body })).status).toBe(403);
    expect((await s.request("POST", `/v1/scm/apps?team_id=${teamId}`, { bearer: outsider, body })).status).toBe(403);
    const badKey = await s.request("POST", `/v1/scm/apps?team_id=${teamId}`, {
      bearer: admin,
      body: { ...body, private_key: "-----BEGIN RSA PRIVATE KEY-----\nnope\n-----END RSA PRIVATE KEY-----\n" },
    });
    expect(badKey.status).toBe(422);
    expect((await s.request("POST", "/v1/scm/apps", { bearer: admin, body })).status).toBe(422);

    const made = await s.request("POST", `/v1/scm/apps?team_id=${teamId}`, { bearer: admin, body });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({
      team_id: teamId,
      app_id: "12",
      app_slug: null,
      has_private_key: true,
      has_webhook_secret: true,
      revoked_at: null,
    });
    expect(made.text).not.toContain("PRIVATE KEY");
    expect(made.text).not.toContain("hook-secret");
    const id = made.json.id as string;

    const fetched = await s.request("GET", `/v1/scm/apps/${id}`, { bearer: developer });
    expect(fetched.json).toEqual(made.json);
    expect((await s.request("GET", `/v1/scm/apps/${id}`, { bearer: outsider })).status).toBe(404);
    const listed = await s.request("GET", `/v1/scm/apps?team_id=${teamId}&page_size=200`, { bearer: developer });
    expect((listed.json.items as { id: string }[]).map((a) => a.id)).toContain(id);
    expect(listed.text).not.toContain("PRIVATE KEY");

    const { projectId, repo } = await vulnerableProject();
    expect(
      (
        await s.request("POST", `/v1/scm/apps/${id}/installations`, {
          bearer: developer,
          body: { installation_id: "1" },
        })
      ).status,
    ).toBe(403);
    const linked = await link(id, projectId, repo);
    expect(linked.status).toBe(200);
    expect(linked.json).toMatchObject({
      app_credential_id: id,
      installation_id: "77",
      account_login: gitea.user,
      project_id: projectId,
      repository_full_name: repo,
    });
    const badRepo = await s.request("POST", `/v1/scm/apps/${id}/installations`, {
      bearer: admin,
      body: { installation_id: "78", repository_full_name: "../etc" },
    });
    expect(badRepo.status).toBe(422);
    const installations = await s.request("GET", `/v1/scm/apps/${id}/installations`, { bearer: developer });
    expect(installations.json).toMatchObject({ total: 1, page: 1, items: [{ installation_id: "77" }] });

    expect((await s.request("DELETE", `/v1/scm/apps/${id}`, { bearer: developer })).status).toBe(403);
    const revoked = await s.request("DELETE", `/v1/scm/apps/${id}`, { bearer: admin });
    expect(revoked.status).toBe(200);
    expect(revoked.json.revoked_at).toEqual(expect.any(String));
    const active = await s.request("GET", `/v1/scm/apps?team_id=${teamId}&page_size=200`, { bearer: admin });
    expect((active.json.items as { id: string }[]).map((a) => a.id)).not.toContain(id);
    const all = await s.request("GET", `/v1/scm/apps?team_id=${teamId}&include_revoked=true&page_size=200`, {
      bearer: admin,
    });
    expect((all.json.items as { id: string }[]).map((a) => a.id)).toContain(id);
    // A revoked app opts nothing in.
    expect((await openPr(projectId)).json).toMatchObject({ status: 409, code: "not_opted_in" });
  }, 60_000);
});

describe("POST /v1/projects/{id}/remediation/npm/pull-request", () => {
  it("opens one pull request on the host, answers it again for the same bumps, and lists it", async () => {
    const { projectId, repo } = await vulnerableProject();
    expect((await openPr(projectId)).json).toMatchObject({ status: 409, code: "not_opted_in" });
    const appId = await registerApp();
    expect((await link(appId, projectId, repo)).status).toBe(200);
    expect((await openPr(projectId, developer)).status).toBe(403);
    expect((await openPr(randomUUID())).status).toBe(404);
    expect((await s.request("POST", `/v1/projects/${projectId}/remediation/npm/pull-request`)).status).toBe(401);
    expect((await openPr(projectId, admin, { manifest: "[1]" })).status).toBe(422);

    const created = await openPr(projectId);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      project_id: projectId,
      ecosystem: "npm",
      repository_full_name: repo,
      base_branch: "main",
      status: "open",
      pr_state: "open",
      package_changes: [{ package: "lodash", from: "4.17.20", to: "4.17.21" }],
    });
    const head = created.json.head_branch as string;
    expect(head).toMatch(/^sca-portal\/remediation-[0-9a-f]{12}$/);
    // The branch was made as GitHub documents it (POST git/refs), not with Gitea's own route.
    expect(posts(repo, "/git/refs")).toEqual([201]);
    expect(posts(repo, "/branches")).toEqual([]);

    // Read back from Gitea: the PR, its one commit, its one file, the edit byte for byte.
    const number = created.json.pr_number as number;
    const pr = await gitea.api<{ head: { ref: string }; base: { ref: string }; body: string; html_url: string }>(
      "GET",
      `/repos/${repo}/pulls/${number}`,
    );
    expect(pr).toMatchObject({ head: { ref: head }, base: { ref: "main" } });
    expect(created.json.pr_url).toBe(pr.html_url);
    expect(pr.body).toContain("| lodash | 4.17.20 | 4.17.21 |");
    expect(pr.body).toMatch(/regenerate the lockfile/);
    const files = await gitea.api<{ filename: string }[]>("GET", `/repos/${repo}/pulls/${number}/files`);
    expect(files.map((f) => f.filename)).toEqual(["package.json"]);
    const commits = await gitea.api<unknown[]>("GET", `/repos/${repo}/pulls/${number}/commits`);
    expect(commits).toHaveLength(1);
    const onBranch = await gitea.api<{ content: string }>(
      "GET",
      `/repos/${repo}/contents/package.json?ref=${encodeURIComponent(head)}`,
    );
    expect(Buffer.from(onBranch.content, "base64").toString("utf8")).toBe(MANIFEST.replace("^4.17.20", "^4.17.21"));

    const again = await openPr(projectId);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(created.json);
    const pulls = await gitea.api<unknown[]>("GET", `/repos/${repo}/pulls?state=all`);
    expect(pulls).toHaveLength(1);
    expect(appHost.tokensIssued()).toBeGreaterThanOrEqual(1);
    // The same bumps again made no second branch.
    expect(posts(repo, "/git/refs")).toEqual([201]);
    const branches = await gitea.api<{ name: string }[]>("GET", `/repos/${repo}/branches`);
    expect(branches.map((b) => b.name).sort()).toEqual(["main", head].sort());

    // Nothing left to bump: a manifest already at the fix.
    const done = await openPr(projectId, admin, { manifest: MANIFEST.replace("^4.17.20", "^4.17.21") });
    expect(done.status).toBe(204);

    const list = await s.request("GET", `/v1/projects/${projectId}/remediation/pull-requests`, { bearer: developer });
    expect(list.json).toMatchObject({ total: 1, page: 1, page_size: 50, items: [created.json] });
    expect(
      (await s.request("GET", `/v1/projects/${projectId}/remediation/pull-requests`, { bearer: outsider })).status,
    ).toBe(403);

    // Closed on the host: the list reads the state again; the record stays the portal's `open`.
    await gitea.api("PATCH", `/repos/${repo}/pulls/${number}`, { state: "closed" });
    const afterClose = await s.request("GET", `/v1/projects/${projectId}/remediation/pull-requests`, {
      bearer: developer,
    });
    expect(afterClose.json.items).toMatchObject([{ id: created.json.id, status: "open", pr_state: "closed" }]);
  }, 60_000);

  it("a host failing mid-way is a 502 with its status and a failed record; the retry doubles nothing", async () => {
    const { projectId, repo } = await vulnerableProject();
    const appId = await registerApp();
    expect((await link(appId, projectId, repo)).status).toBe(200);
    // The branch and its commit are written, then the host refuses to open the pull request.
    appHost.fault = { method: "POST", pathEnds: "/pulls", status: 500 };
    let failed;
    try {
      failed = await openPr(projectId);
    } finally {
      appHost.fault = null;
    }
    expect(failed.status).toBe(502);
    expect(failed.json).toMatchObject({ code: "remote_write_failed", remote_status: 500 });
    expect(failed.text).not.toContain(gitea.token);
    expect(failed.text).not.toContain("injected fault");
    const afterFailure = await s.request("GET", `/v1/projects/${projectId}/remediation/pull-requests`, {
      bearer: admin,
    });
    expect(afterFailure.json.items).toMatchObject([{ status: "failed", pr_number: null }]);

    const retried = await openPr(projectId);
    expect(retried.status).toBe(201);
    expect(retried.json.head_branch).toBe((afterFailure.json.items as { head_branch: string }[])[0]!.head_branch);
    const number = retried.json.pr_number as number;
    expect(await gitea.api<unknown[]>("GET", `/repos/${repo}/pulls/${number}/commits`)).toHaveLength(1);
    expect(await gitea.api<unknown[]>("GET", `/repos/${repo}/pulls?state=all`)).toHaveLength(1);
    const branches = await gitea.api<{ name: string }[]>("GET", `/repos/${repo}/branches`);
    expect(branches.map((b) => b.name).sort()).toEqual(["main", retried.json.head_branch].sort());
    // The retry's git/refs write found the branch there (GitHub's 422 "Reference already exists") and went on.
    expect(posts(repo, "/git/refs")).toEqual([201, 422]);
    const list = await s.request("GET", `/v1/projects/${projectId}/remediation/pull-requests`, { bearer: admin });
    expect((list.json.items as { status: string }[]).map((r) => r.status)).toEqual(["open", "failed"]);

    // A repository the installation cannot see is unusable (422), not a remote failure.
    expect((await link(appId, projectId, `${gitea.user}/no-such-${randomUUID().slice(0, 6)}`)).status).toBe(200);
    expect((await openPr(projectId, admin, { manifest: MANIFEST })).status).toBe(422);
  }, 60_000);
});

// Last of the branch writers: the portal remembers a host without git/refs for the life of the process.
describe("a host without GitHub's git/refs write (Gitea's own API)", () => {
  it("falls back to Gitea's branch creation once, then goes there first", async () => {
    appHost.servesGitRefs = false;
    try {
      const first = await vulnerableProject();
      const appId = await registerApp();
      expect((await link(appId, first.projectId, first.repo)).status).toBe(200);
      const created = await openPr(first.projectId);
      expect(created.status).toBe(201);
      const head = created.json.head_branch as string;
      // Gitea has no POST git/refs (404 or 405): the branch was made with its POST /branches.
      const refused = posts(first.repo, "/git/refs");
      expect(refused).toHaveLength(1);
      expect([404, 405]).toContain(refused[0]);
      expect(posts(first.repo, "/branches")).toEqual([201]);
      const pr = await gitea.api<{ head: { ref: string }; base: { ref: string } }>(
        "GET",
        `/repos/${first.repo}/pulls/${created.json.pr_number as number}`,
      );
      expect(pr).toMatchObject({ head: { ref: head }, base: { ref: "main" } });

      // Remembered: the next branch goes straight to Gitea's route.
      const second = await vulnerableProject();
      expect((await link(appId, second.projectId, second.repo)).status).toBe(200);
      const next = await openPr(second.projectId);
      expect(next.status).toBe(201);
      expect(posts(second.repo, "/git/refs")).toEqual([]);
      expect(posts(second.repo, "/branches")).toEqual([201]);
      // The same bumps again: the open record, no second branch.
      const again = await openPr(second.projectId);
      expect(again.status).toBe(200);
      expect(again.json).toEqual(next.json);
      expect(posts(second.repo, "/branches")).toEqual([201]);
      const branches = await gitea.api<{ name: string }[]>("GET", `/repos/${second.repo}/branches`);
      expect(branches.map((b) => b.name).sort()).toEqual(["main", next.json.head_branch].sort());
    } finally {
      appHost.servesGitRefs = true;
    }
  }, 60_000);
});

describe("remediation records left creating by a crash", () => {
  /**
   * A record as the request writes it before touching the host, `minutesAgo` old: what a portal killed between the
   * record and the remote writes leaves (no route can stop it there, so the row is written as the request does).
   */
  async function leftCreating(projectId: string, repo: string, branch: string, minutesAgo: number): Promise<string> {
    const id = randomUUID();
    const at = new Date(Date.now() - minutesAgo * 60_000);
    await s.projects.orm.em
      .getConnection()
      .execute(
        "insert into remediation_pull_requests (id, project_id, ecosystem, repository_full_name, head_branch, " +
          "base_branch, status, package_changes, fingerprint, created_at, updated_at) " +
          "values (?, ?, 'npm', ?, ?, 'main', 'creating', ?, ?, ?, ?)",
        [
          id,
          projectId,
          repo,
          branch,
          JSON.stringify([{ package: "lodash", from: "4.17.20", to: "4.17.21" }]),
          randomUUID().replaceAll("-", "").repeat(2),
          at,
          at,
        ],
      );
    return id;
  }

  it("are settled against the host: open with the PR opened before the crash, failed without one", async () => {
    const { projectId, repo } = await vulnerableProject();
    const appId = await registerApp();
    expect((await link(appId, projectId, repo)).status).toBe(200);
    // Killed after the pull request was opened: the branch, its commit and the PR are on the host.
    const openedBranch = `sca-portal/remediation-${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await gitea.push(repo, openedBranch, { "package.json": MANIFEST.replace("^4.17.20", "^4.17.21") }, "Bump lodash");
    const pr = await gitea.api<{ number: number; html_url: string }>("POST", `/repos/${repo}/pulls`, {
      head: openedBranch,
      base: "main",
      title: "Bump lodash from 4.17.20 to 4.17.21",
    });
    const opened = await leftCreating(projectId, repo, openedBranch, 60);
    // Killed before the branch was made: nothing on the host.
    const nothing = await leftCreating(projectId, repo, "sca-portal/remediation-000000000000", 60);
    // A request still under way (written a moment ago) is left to it.
    const recent = await leftCreating(projectId, repo, "sca-portal/remediation-111111111111", 0);

    type Item = {
      id: string;
      status: string;
      pr_number: number | null;
      pr_url: string | null;
      pr_state: string | null;
    };
    const list = async () =>
      (await s.request("GET", `/v1/projects/${projectId}/remediation/pull-requests`, { bearer: admin })).json
        .items as Item[];
    const settled = await eventually(
      list,
      (items) => items.filter((i) => i.status !== "creating").length === 2,
      30_000,
    );
    const byId = new Map(settled.map((i) => [i.id, i]));
    expect(byId.get(opened)).toMatchObject({
      status: "open",
      pr_number: pr.number,
      pr_url: pr.html_url,
      pr_state: "open",
    });
    expect(byId.get(nothing)).toMatchObject({ status: "failed", pr_number: null, pr_url: null });
    expect(byId.get(recent)).toMatchObject({ status: "creating", pr_number: null });
    // Nothing was written to the host: still its one pull request and the branches it had.
    expect(await gitea.api<unknown[]>("GET", `/repos/${repo}/pulls?state=all`)).toHaveLength(1);
    const branches = await gitea.api<{ name: string }[]>("GET", `/repos/${repo}/branches`);
    expect(branches.map((b) => b.name).sort()).toEqual(["main", openedBranch].sort());
  }, 60_000);
});
