// Approval requests and organization verdicts through a real gateway, identity, projects, policy and admin (one topic
// prefix, as in a deployment), over a project whose inventory was ingested as the scanner-runner hands it over:
// create, the team-scoped list with every filter, get with ETag, the If-Match transition with 412 and 428, the state
// machine's 409s, truly concurrent transitions (one wins, the others 412), delete rules, existence hiding, the
// audit entries in admin's log and the ApprovalRequested/ApprovalDecided events; then verdicts with their visibility
// rule and the per-project view across the organization's projects.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { TOPICS } from "@sca/kafka";
import { ApprovalDecidedSchema, ApprovalRequestedSchema } from "@sca/proto/sca/events/v1/approvals_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import {
  closeTogether,
  callAs,
  EventReader,
  fixturesOf,
  ingestArtefact,
  startService,
  type TestService,
  uniqueName,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

interface Reply {
  status: number;
  json: Record<string, unknown>;
  headers: Headers;
}
interface Person {
  id: string;
  token: string;
}
type Approval = Record<string, unknown> & { id: string; version: number; status: string };

let dir: string;
let identity: TestService;
let projects: TestService;
let policy: TestService;
let admin: TestService;
let notifier: TestService;
let gateway: TestGateway;
let events: EventReader;
let organizationId: string;
let team: string;
let otherTeam: string;
let projectId: string;
let otherProjectId: string;
let components: { component_id: string; name: string; purl: string | null }[];
let root: Person;
let requester: Person;
let reviewer: Person;
let secondReviewer: Person;
let viewer: Person;
let groupAdmin: Person;
let outsider: Person;
let stranger: Person;

async function request(
  method: string,
  path: string,
  who: Person,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await fetch(`${gateway.origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${who.token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
}

const ask = async (componentIndex = 0, who = requester, project = projectId) =>
  request("POST", "/v1/approvals", who, {
    project_id: project,
    component_id: components[componentIndex]!.component_id,
  });
const transition = (id: string, who: Person, body: unknown, ifMatch?: string) =>
  request("PATCH", `/v1/approvals/${id}/transition`, who, body, ifMatch === undefined ? {} : { "If-Match": ifMatch });
const list = async (query: string, who: Person = viewer) => request("GET", `/v1/approvals${query}`, who);
const ids = (r: Reply) => (r.json.items as Approval[]).map((a) => a.id);

async function ingestInventory(project: string): Promise<void> {
  const fixtures = await fixturesOf("projects");
  const artefact = fixtures.findingsArtefact();
  await ingestArtefact(projects.client(InventoryService), new DirectoryArtefactStore(dir), project, artefact);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-gw-approvals-"));
  const KAFKA_TOPIC_PREFIX = `${uniqueName("approvals")}.`;
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  projects = await startService("projects", {
    env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX, ARTEFACT_DIR: dir },
  });
  policy = await startService("policy", {
    env: { KAFKA_TOPIC_PREFIX, IDENTITY_RPC_URL: identity.url!, PROJECTS_RPC_URL: projects.url! },
  });
  admin = await startService("admin", { env: { KAFKA_TOPIC_PREFIX } });
  notifier = await startService("notifier", { env: { KAFKA_TOPIC_PREFIX, IDENTITY_RPC_URL: identity.url! } });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, policy: policy.url!, admin: admin.url!, notifier: notifier.url! },
  });
  events = await EventReader.start(policy.kafka!, TOPICS.domainEvents);
  const directory = identity.client(DirectoryService);
  const rootCall = await callAs.superAdmin(randomUUID());
  const newTeam = async () => {
    const slug = `team-${randomUUID().slice(0, 8)}`;
    const { team } = await directory.createTeam({ name: `Team ${slug}`, slug }, rootCall);
    return team!;
  };
  const first = await newTeam();
  team = first.id;
  organizationId = first.organizationId!;
  otherTeam = (await newTeam()).id;
  const identityFixtures = await fixturesOf("identity");
  const person = async (name: string, roles: [string, string][], superAdmin = false): Promise<Person> => {
    const id = await identityFixtures.user(identity.orm, { fullName: name, superAdmin });
    for (const [teamId, role] of roles) await directory.addTeamMember({ teamId, userId: id, role }, rootCall);
    return { id, token: await identityFixtures.accessToken(id) };
  };
  root = await person("Root", [], true);
  requester = await person("Rita Requester", [[team, "developer"]]);
  reviewer = await person("Rene Reviewer", [[team, "team_admin"]]);
  secondReviewer = await person("Sam Reviewer", [[team, "team_admin"]]);
  viewer = await person("Vic Viewer", [[team, "viewer"]]);
  groupAdmin = await person("Gail Groupadmin", [[team, "group_admin"]]);
  outsider = await person("Otto Outsider", [[otherTeam, "team_admin"]]);
  stranger = await person("Stan Stranger", []);
  const newProject = async (teamId: string) => {
    const r = await request("POST", "/v1/projects", root, {
      name: "Approvals",
      slug: `approvals-${randomUUID().slice(0, 6)}`,
      team_id: teamId,
    });
    expect(r.status).toBe(201);
    return r.json.id as string;
  };
  projectId = await newProject(team);
  otherProjectId = await newProject(otherTeam);
  await ingestInventory(projectId);
  await ingestInventory(otherProjectId);
  const listed = await request("GET", `/v1/projects/${projectId}/components?limit=500`, viewer);
  components = listed.json.items as typeof components;
  expect(components.length).toBeGreaterThanOrEqual(5);
}, 180_000);

afterAll(async () => {
  await events?.stop();
  await closeTogether([gateway, notifier, admin, policy, projects, identity]);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 120_000);

describe("approval requests", () => {
  it("are created pending at version 1 by a member of the project's team, with the project and component named", async () => {
    const r = await ask(0);
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.json).toMatchObject({
      project_id: projectId,
      project_name: "Approvals",
      team_id: team,
      component_id: components[0]!.component_id,
      component_name: components[0]!.name,
      component_purl: components[0]!.purl,
      status: "pending",
      version: 1,
      requested_by_user_id: requester.id,
      requested_by_name: "Rita Requester",
      decided_by_user_id: null,
      decided_at: null,
      decision_note: null,
    });
    expect(typeof r.json.project_slug).toBe("string");
    expect(Date.parse(r.json.requested_at as string)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("hide projects outside the caller's teams and unknown components (404), refuse bad input (422)", async () => {
    expect((await ask(0, outsider)).status).toBe(404);
    expect((await ask(0, stranger)).status).toBe(404);
    // The other team's project is readable by its own members, not by ours.
    expect((await ask(0, requester, otherProjectId)).status).toBe(404);
    const unknown = await request("POST", "/v1/approvals", requester, {
      project_id: projectId,
      component_id: randomUUID(),
    });
    expect(unknown.status).toBe(404);
    const bad = await request("POST", "/v1/approvals", requester, { project_id: "nope" });
    expect(bad.status).toBe(422);
    expect(bad.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect((bad.json.errors as { path: string }[]).map((e) => e.path).sort()).toEqual([
      "body.component_id",
      "body.project_id",
    ]);
  });

  it("answer one request with its version as ETag to members; 404 to anyone else", async () => {
    const created = await ask(1);
    const id = created.json.id as string;
    const r = await request("GET", `/v1/approvals/${id}`, viewer);
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.json).toEqual(created.json);
    expect((await request("GET", `/v1/approvals/${id}`, outsider)).status).toBe(404);
    expect((await request("GET", `/v1/approvals/${id}`, root)).status).toBe(200);
    expect((await request("GET", `/v1/approvals/${randomUUID()}`, viewer)).status).toBe(404);
    expect((await request("GET", `/v1/approvals/not-a-uuid`, viewer)).status).toBe(422);
  });

  it("move only with If-Match: 428 without, 412 stale with current_version, 403 below team_admin or for the requester", async () => {
    const { json } = await ask(2);
    const id = json.id as string;
    expect((await transition(id, reviewer, { action: "under_review" })).status).toBe(428);
    const stale = await transition(id, reviewer, { action: "under_review" }, '"7"');
    expect(stale.status).toBe(412);
    expect(stale.json.current_version).toBe(1);
    expect(stale.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect(stale.headers.get("etag")).toBe('"1"');
    expect((await transition(id, viewer, { action: "approved" }, '"1"')).status).toBe(403);
    expect((await transition(id, requester, { action: "approved" }, '"1"')).status).toBe(403);
    expect((await transition(id, outsider, { action: "approved" }, '"1"')).status).toBe(404);
    expect((await transition(id, reviewer, { action: "sleeping" }, '"1"')).status).toBe(422);

    const review = await transition(id, reviewer, { action: "under_review", decision_note: "looking" }, '"1"');
    expect(review.status).toBe(200);
    expect(review.headers.get("etag")).toBe('"2"');
    expect(review.json).toMatchObject({ status: "under_review", version: 2, decided_by_user_id: null });
    const again = await transition(id, reviewer, { action: "under_review" }, '"2"');
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ current_status: "under_review", allowed_actions: ["approved", "rejected"] });

    const approved = await transition(id, secondReviewer, { action: "approved", decision_note: "vetted" }, 'W/"2"');
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({
      status: "approved",
      version: 3,
      decided_by_user_id: secondReviewer.id,
      decision_note: "vetted",
    });
    expect(Date.parse(approved.json.decided_at as string)).toBeGreaterThan(Date.now() - 60_000);
    const final = await transition(id, reviewer, { action: "rejected" }, '"3"');
    expect(final.status).toBe(409);
    expect(final.json).toMatchObject({ current_status: "approved", allowed_actions: [] });
  });

  it("let exactly one of truly concurrent transitions from one version win; the others get 412", async () => {
    for (let round = 0; round < 5; round++) {
      const { json } = await ask(round % components.length);
      const id = json.id as string;
      const actions = ["approved", "rejected", "under_review", "approved"];
      const racers = [reviewer, secondReviewer, groupAdmin, root];
      const answers = await Promise.all(
        actions.map((action, i) => transition(id, racers[i]!, { action, decision_note: `racer ${i}` }, '"1"')),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([200, 412, 412, 412]);
      const winner = answers.find((a) => a.status === 200)!;
      for (const loser of answers.filter((a) => a.status === 412)) expect(loser.json.current_version).toBe(2);
      const stored = await request("GET", `/v1/approvals/${id}`, viewer);
      expect(stored.json).toMatchObject({
        version: 2,
        status: winner.json.status,
        decision_note: winner.json.decision_note,
      });
    }
  }, 60_000);

  it("are deleted while not final by the requester, a team_admin or a super_admin, never by others", async () => {
    const mine = (await ask(3)).json.id as string;
    expect((await request("DELETE", `/v1/approvals/${mine}`, viewer)).status).toBe(403);
    expect((await request("DELETE", `/v1/approvals/${mine}`, outsider)).status).toBe(404);
    expect((await request("DELETE", `/v1/approvals/${mine}`, requester)).status).toBe(204);
    expect((await request("GET", `/v1/approvals/${mine}`, requester)).status).toBe(404);
    const reviewed = (await ask(3)).json.id as string;
    await transition(reviewed, reviewer, { action: "under_review" }, '"1"');
    expect((await request("DELETE", `/v1/approvals/${reviewed}`, reviewer)).status).toBe(204);
    const rejected = (await ask(3)).json.id as string;
    await transition(rejected, reviewer, { action: "rejected", decision_note: "no" }, '"1"');
    const refused = await request("DELETE", `/v1/approvals/${rejected}`, root);
    expect(refused.status).toBe(409);
    expect(refused.json.current_status).toBe("rejected");
  });

  it("list only the caller's teams, newest first, with every filter", async () => {
    const all = await list("?page_size=200");
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ page: 1, page_size: 200 });
    const items = all.json.items as Approval[];
    expect(all.json.total).toBe(items.length);
    expect(items.length).toBeGreaterThanOrEqual(9);
    const times = items.map((a) => Date.parse(a.requested_at as string));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // The outsider's team has none; filtering by our project from outside gives an empty page, not an error.
    expect((await list("", outsider)).json).toMatchObject({ items: [], total: 0 });
    expect((await list(`?project_id=${projectId}`, outsider)).json).toMatchObject({ items: [], total: 0 });
    expect((await list(`?team_id=${team}`, outsider)).json).toMatchObject({ items: [], total: 0 });
    expect((await list(`?project_id=${projectId}&page_size=200`)).json.total).toBe(items.length);
    expect((await list(`?project_id=${otherProjectId}`)).json.total).toBe(0);
    expect((await list(`?team_id=${team}&page_size=200`, root)).json.total).toBe(items.length);

    const pending = await list("?status=pending&page_size=200");
    expect((pending.json.items as Approval[]).every((a) => a.status === "pending")).toBe(true);
    const decided = await list("?status=approved,rejected&page_size=200");
    const decidedItems = decided.json.items as Approval[];
    expect(decidedItems.length).toBeGreaterThanOrEqual(2);
    expect(decidedItems.every((a) => a.status === "approved" || a.status === "rejected")).toBe(true);
    expect(
      (pending.json.total as number) +
        (decided.json.total as number) +
        ((await list("?status=under_review")).json.total as number),
    ).toBe(items.length);
    expect((await list("?status=sleeping")).status).toBe(422);

    expect((await list(`?requested_by_user_id=${requester.id}&page_size=200`)).json.total).toBe(items.length);
    expect((await list(`?requested_by_user_id=${reviewer.id}`)).json.total).toBe(0);

    const oldest = items[items.length - 1]!;
    const newest = items[0]!;
    const after = await list(`?from_dt=${encodeURIComponent(newest.requested_at as string)}`);
    expect(ids(after)).toEqual([newest.id]);
    const before = await list(`?to_dt=${encodeURIComponent(newest.requested_at as string)}&page_size=200`);
    expect(before.json.total).toBe(items.length - 1);
    expect(ids(before)).toContain(oldest.id);
    expect((await list("?from_dt=yesterday")).status).toBe(422);

    const second = await list("?page=2&page_size=2");
    expect(ids(second)).toEqual(items.slice(2, 4).map((a) => a.id));
    expect((await list("?page_size=201")).status).toBe(422);
  });

  it("audit every request and decision into admin's log, and publish ApprovalRequested and ApprovalDecided", async () => {
    const created = await ask(4);
    const id = created.json.id as string;
    await transition(id, reviewer, { action: "rejected", decision_note: "licence unclear" }, '"1"');
    const requested = await events.waitFor(ApprovalRequestedSchema, (e) => e.approval?.approvalId === id);
    expect(requested[0]!.approval).toMatchObject({
      projectId,
      teamId: team,
      organizationId,
      componentId: components[4]!.component_id,
      requestedByUserId: requester.id,
    });
    const decided = await events.waitFor(ApprovalDecidedSchema, (e) => e.approval?.approvalId === id);
    expect(decided[0]).toMatchObject({ status: "rejected", decidedByUserId: reviewer.id });

    const deadline = Date.now() + 30_000;
    let entries: { action: string; target_id: string; actor_user_id: string }[] = [];
    while (Date.now() < deadline) {
      const page = await request("GET", "/v1/admin/audit?target_table=approval_requests&page_size=200", root);
      entries = page.json.items as typeof entries;
      if (entries.filter((e) => e.target_id === id).length >= 2 && entries.some((e) => e.action === "approval.deleted"))
        break;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(
      entries
        .filter((e) => e.target_id === id)
        .map((e) => e.action)
        .sort(),
    ).toEqual(["approval.rejected", "approval.requested"]);
    expect(new Set(entries.map((e) => e.action))).toEqual(
      new Set([
        "approval.requested",
        "approval.under_review",
        "approval.approved",
        "approval.rejected",
        "approval.deleted",
      ]),
    );
  }, 60_000);

  it("notify the team's reviewers of a request (not the requester) and the requester of the decision", async () => {
    const created = await ask(3);
    const id = created.json.id as string;
    const about = async (who: Person) => {
      const page = await request("GET", "/v1/notifications?page_size=200", who);
      return (page.json.items as { kind: string; link: string | null; title: string }[]).filter(
        (n) => n.link === `/approvals/${id}`,
      );
    };
    const waitFor = async (who: Person, count: number) => {
      const deadline = Date.now() + 30_000;
      let found = await about(who);
      while (found.length < count && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 300));
        found = await about(who);
      }
      return found;
    };
    const [toReviewer] = await waitFor(reviewer, 1);
    expect(toReviewer).toMatchObject({ kind: "approval.requested" });
    expect(toReviewer!.title).toContain(components[3]!.name);
    expect((await waitFor(groupAdmin, 1)).map((n) => n.kind)).toEqual(["approval.requested"]);
    await transition(id, reviewer, { action: "approved", decision_note: "fine" }, '"1"');
    const toRequester = await waitFor(requester, 1);
    expect(toRequester.map((n) => [n.kind, n.title])).toEqual([
      ["approval.decided", `Approval approved: ${components[3]!.name}`],
    ]);
    // Viewers are no reviewers; the reviewer hears nothing of the decision they made.
    expect(await about(viewer)).toEqual([]);
    expect((await about(reviewer)).map((n) => n.kind)).toEqual(["approval.requested"]);
  }, 60_000);

  it("follow a rename of the project (ProjectUpdated keeps the copied name and slug current)", async () => {
    const id = (await ask(1)).json.id as string;
    const patched = await request("PATCH", `/v1/projects/${projectId}`, root, { name: "Renamed project" });
    expect(patched.status).toBe(200);
    const deadline = Date.now() + 30_000;
    let seen: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      seen = (await request("GET", `/v1/approvals/${id}`, viewer)).json;
      if (seen.project_name === "Renamed project") break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(seen).toMatchObject({ project_name: "Renamed project", project_slug: patched.json.slug });
  }, 40_000);
});

describe("organization verdicts", () => {
  const base = () => `/v1/organizations/${organizationId}/verdicts`;
  let verdictId: string;

  it("are started under_review by a writer; members below group_admin 403, outsiders 404, bad input 422", async () => {
    const componentId = components[0]!.component_id;
    const body = { component_id: componentId, justification: "Vetted by the legal team for every product." };
    expect((await request("POST", base(), reviewer, body)).status).toBe(403);
    expect((await request("POST", base(), stranger, body)).status).toBe(404);
    expect((await request("POST", `/v1/organizations/${randomUUID()}/verdicts`, groupAdmin, body)).status).toBe(404);
    const short = await request("POST", base(), groupAdmin, { component_id: componentId, justification: " too short" });
    expect(short.status).toBe(422);
    expect((short.json.errors as { path: string }[])[0]!.path).toBe("justification");
    const started = await request("POST", base(), groupAdmin, body);
    expect(started.status).toBe(201);
    expect(started.json).toMatchObject({
      organization_id: organizationId,
      component_id: componentId,
      justification: body.justification,
      status: "under_review",
      version: 1,
      requested_by_user_id: groupAdmin.id,
      decided_by_user_id: null,
      decision_note: null,
    });
    verdictId = started.json.id as string;
    const twice = await request("POST", base(), root, body);
    expect(twice.status).toBe(409);
    expect(twice.json.verdict_id).toBe(verdictId);
  });

  it("move between statuses by writers, with optional If-Match; the same status is 409", async () => {
    const path = `${base()}/${verdictId}`;
    expect((await request("PATCH", path, reviewer, { status: "approved" })).status).toBe(403);
    expect((await request("PATCH", path, groupAdmin, { status: "under_review" })).status).toBe(409);
    const stale = await request("PATCH", path, groupAdmin, { status: "approved" }, { "If-Match": '"4"' });
    expect(stale.status).toBe(412);
    expect(stale.json.current_version).toBe(1);
    const approved = await request("PATCH", path, root, {
      status: "approved",
      note: "Discussed in council: internal only",
    });
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({
      status: "approved",
      version: 2,
      decided_by_user_id: root.id,
      decision_note: "Discussed in council: internal only",
    });
    expect((await request("PATCH", path, root, { status: "bogus" })).status).toBe(422);
    expect((await request("PATCH", `${base()}/${randomUUID()}`, root, { status: "approved" })).status).toBe(404);
  });

  it("show the published reason to every member, the deliberation and names only to writers", async () => {
    const byReader = await request("GET", base(), viewer);
    expect(byReader.status).toBe(200);
    const seen = (byReader.json.items as Record<string, unknown>[]).find((v) => v.id === verdictId)!;
    expect(seen).toMatchObject({
      status: "approved",
      justification: "Vetted by the legal team for every product.",
      decision_note: null,
      requested_by_user_id: null,
      decided_by_user_id: null,
    });
    const byWriter = await request("GET", `${base()}?status=approved`, groupAdmin);
    expect((byWriter.json.items as Record<string, unknown>[]).find((v) => v.id === verdictId)).toMatchObject({
      decision_note: "Discussed in council: internal only",
      requested_by_user_id: groupAdmin.id,
      decided_by_user_id: root.id,
    });
    expect((await request("GET", `${base()}?status[]=rejected`, groupAdmin)).json.total).toBe(0);
    expect((await request("GET", `${base()}?status=maybe`, groupAdmin)).status).toBe(422);
    expect((await request("GET", base(), stranger)).status).toBe(404);
  });

  it("apply to every project of the organization (the per-project view)", async () => {
    const componentId = components[0]!.component_id;
    const ours = await request("GET", `/v1/projects/${projectId}/components/${componentId}/verdict`, viewer);
    expect(ours.status).toBe(200);
    expect(ours.json).toEqual({
      component_id: componentId,
      project_id: projectId,
      scope: "organization",
      status: "approved",
      justification: "Vetted by the legal team for every product.",
    });
    // The other team's project, in the same organization: the same ruling applies there.
    const theirs = await request("GET", `/v1/projects/${otherProjectId}/components/${componentId}/verdict`, outsider);
    expect(theirs.json).toMatchObject({ project_id: otherProjectId, status: "approved", scope: "organization" });
    expect(
      (await request("GET", `/v1/projects/${otherProjectId}/components/${componentId}/verdict`, viewer)).status,
    ).toBe(404);
    const none = await request(
      "GET",
      `/v1/projects/${projectId}/components/${components[1]!.component_id}/verdict`,
      viewer,
    );
    expect(none.status).toBe(404);
  });
});
