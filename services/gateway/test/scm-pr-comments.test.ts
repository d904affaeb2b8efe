// POST /v1/scans/{id}/post-pr-comment end to end (docs/scm.md, "Pull-request comments"): a real gateway, identity,
// projects, policy (the gate) and scan-orchestrator (the scan and its pull-request metadata); the base branch's and
// the pull request's snapshots made as the scanner-runner hands them over (projects' findings fixture, the base
// without lodash's verdicts); the run's Gitea behind the test kit's app-token exchange. The comment is read back
// from Gitea. Projects and policy call each other: policy listens on a port picked first (as gate-stack.ts).
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import {
  callAs,
  closeTogether,
  fixturesOf,
  freePort,
  ingestArtefact,
  sharedGitea,
  startGiteaAppHost,
  startService,
  uniqueName,
  type GiteaAppHost,
  type SharedGitea,
  type TestService,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { gatewayRequest, type GatewayRequest } from "./support/gateway-request.ts";

let services: TestService[] = [];
let gateway: TestGateway;
let request: GatewayRequest;
let projects: TestService;
let gitea: SharedGitea;
let appHost: GiteaAppHost;
let dir: string;
let teamId: string;
let admin: string;
let developer: string;
let viewer: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-gw-pr-comments-"));
  gitea = await sharedGitea();
  appHost = await startGiteaAppHost(gitea);
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("pr_comments")}.`;
  const identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  const policyPort = await freePort();
  projects = await startService("projects", {
    env: {
      KAFKA_TOPIC_PREFIX,
      IDENTITY_RPC_URL: identity.url!,
      POLICY_RPC_URL: `http://127.0.0.1:${policyPort}`,
      ARTEFACT_DIR: dir,
      SCM_API_URL: appHost.apiUrl,
    },
  });
  const policy = await startService("policy", {
    env: {
      KAFKA_TOPIC_PREFIX,
      IDENTITY_RPC_URL: identity.url!,
      PROJECTS_RPC_URL: projects.url!,
      RPC_PORT: String(policyPort),
    },
  });
  const scans = await startService("scan-orchestrator", {
    env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX, ARTEFACT_DIR: dir },
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, policy: policy.url!, "scan-orchestrator": scans.url! },
    env: { ARTEFACT_DIR: dir },
  });
  services = [identity, projects, policy, scans];
  request = gatewayRequest(gateway.origin);
  const directory = identity.client(DirectoryService);
  const root = await callAs.superAdmin(randomUUID());
  const slug = `team-${randomUUID().slice(0, 8)}`;
  teamId = (await directory.createTeam({ name: `Team ${slug}`, slug }, root)).team!.id;
  const people = await fixturesOf("identity");
  const person = async (role: string) => {
    const id = await people.user(identity.orm, { fullName: `A ${role}` });
    await directory.addTeamMember({ teamId, userId: id, role }, root);
    return people.accessToken(id);
  };
  admin = await person("team_admin");
  developer = await person("developer");
  viewer = await person("viewer");
}, 120_000);

afterAll(async () => {
  await closeTogether([...(gateway ? [gateway] : []), ...services.reverse()]);
  await appHost?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Ingests the findings fixture as the scan `scanId` on `ref`; `withoutLodash` drops lodash's verdicts. */
async function ingest(projectId: string, scanId: string, ref: string, withoutLodash = false) {
  const fixtures = await fixturesOf("projects");
  const runner = await callAs.service("scanner-runner");
  await ingestArtefact(
    projects.client(InventoryService),
    new DirectoryArtefactStore(dir),
    projectId,
    fixtures.findingsArtefact(),
    { caller: runner, scanId, ref },
  );
  const matches = fixtures.scanMatches(projectId, scanId);
  if (withoutLodash) matches.verdicts = matches.verdicts!.filter((v) => v.package?.name !== "lodash");
  await projects.client(VulnerabilityMatchService).recordScanMatches(matches, runner);
}

describe("POST /v1/scans/{id}/post-pr-comment", () => {
  it("comments what the pull request brings and the gate, once, updated on the next call", async () => {
    const name = `prc-${randomUUID().slice(0, 8)}`;
    const repo = await gitea.createRepo(name);
    await gitea.push(repo, "feature", { "package.json": '{"dependencies": {"lodash": "4.17.20"}}\n' }, "Add lodash");
    const pr = await gitea.api<{ number: number }>("POST", `/repos/${repo}/pulls`, {
      head: "feature",
      base: "main",
      title: "Add lodash",
    });
    const created = await request("POST", "/v1/projects", {
      bearer: admin,
      body: { name, slug: name, team_id: teamId, git_url: gitea.cloneUrl(repo), default_branch: "main" },
    });
    expect(created.status).toBe(201);
    const projectId = created.json.id as string;
    await ingest(projectId, randomUUID(), "refs/heads/main", true);
    const scan = await request("POST", `/v1/projects/${projectId}/scans`, {
      bearer: developer,
      body: {
        kind: "source",
        ref: `refs/pull/${pr.number}/head`,
        metadata: { pull_request_number: pr.number, base_ref: "refs/heads/main" },
      },
    });
    expect(scan.status).toBe(202);
    const scanId = scan.json.id as string;
    const comment = () => request("POST", `/v1/scans/${scanId}/post-pr-comment`, { bearer: developer });

    expect((await comment()).json).toMatchObject({ status: 409, code: "not_opted_in" });
    const app = await request("POST", `/v1/scm/apps?team_id=${teamId}`, {
      bearer: admin,
      body: { app_id: appHost.appId, private_key: appHost.privateKeyPem },
    });
    const linked = await request("POST", `/v1/scm/apps/${app.json.id as string}/installations`, {
      bearer: admin,
      body: { installation_id: "9", project_id: projectId, repository_full_name: repo },
    });
    expect(linked.status).toBe(200);
    // Queued, not yet scanned: nothing to say.
    expect((await comment()).json).toMatchObject({ status: 409, code: "scan_has_no_inventory" });
    await ingest(projectId, scanId, `refs/pull/${pr.number}/head`);

    expect((await request("POST", `/v1/scans/${scanId}/post-pr-comment`, { bearer: viewer })).status).toBe(403);
    expect((await request("POST", `/v1/scans/${scanId}/post-pr-comment`)).status).toBe(401);
    const first = await comment();
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      scan_id: scanId,
      project_id: projectId,
      pull_request_number: pr.number,
      action: "created",
      base_ref: "refs/heads/main",
      gate_outcome: "fail",
      license_problems: [],
    });
    expect(first.json.base_scan_id).toEqual(expect.any(String));
    // Only lodash's two are new: the base carries the rest.
    expect(
      (first.json.new_findings as { vulnerability_id: string; package: string }[])
        .map((f) => `${f.package} ${f.vulnerability_id}`)
        .sort(),
    ).toEqual(["lodash CVE-2020-28500", "lodash CVE-2021-23337"]);

    const onHost = await gitea.api<{ id: number; body: string }[]>(
      "GET",
      `/repos/${repo}/issues/${pr.number}/comments`,
    );
    expect(onHost).toHaveLength(1);
    expect(onHost[0]!.id).toBe(first.json.comment_id);
    expect(onHost[0]!.body).toContain("**Gate: failed** (judged on this scan)");
    expect(onHost[0]!.body).toContain("| lodash | 4.17.20 |");
    expect(onHost[0]!.body).toContain("CVE-2021-23337");
    expect(onHost[0]!.body).not.toContain("CVE-2021-44228 |"); // Log4Shell is on main already: not new.

    const second = await comment();
    expect(second.json).toMatchObject({ action: "updated", comment_id: first.json.comment_id });
    expect(await gitea.api<unknown[]>("GET", `/repos/${repo}/issues/${pr.number}/comments`)).toHaveLength(1);

    // A scan of no pull request.
    const plain = await request("POST", `/v1/projects/${projectId}/scans`, {
      bearer: developer,
      body: { kind: "source", ref: "refs/heads/main" },
    });
    expect(
      (await request("POST", `/v1/scans/${plain.json.id as string}/post-pr-comment`, { bearer: developer })).status,
    ).toBe(422);
    expect((await request("POST", `/v1/scans/${randomUUID()}/post-pr-comment`, { bearer: developer })).status).toBe(
      404,
    );
  }, 60_000);
});
