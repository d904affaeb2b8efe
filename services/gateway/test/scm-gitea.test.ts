// Repository webhooks from a real source host (docs/scm.md): the run's Gitea (@sca/testkit sharedGitea) sends its
// own signed push and pull-request webhooks to the gateway; the scan they start clones the pushed ref from Gitea over
// HTTP (SCAN_GIT_ALLOWED_HOSTS=localhost) and runs through the real scanner-runner to the end. The project is opted
// in through the test kit's app-token exchange in front of Gitea (startGiteaAppHost), with policy for the gate: the
// pull request's scan comments the pull request by itself once it succeeded (docs/scm.md, "Pull-request comments").
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { EVENT_ID, EVENT_TYPE, TOPICS, uuidv7 } from "@sca/kafka";
import { ScanStateChangedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import {
  EventReader,
  eventually,
  sharedGitea,
  startGiteaAppHost,
  type GiteaAppHost,
  type SharedGitea,
} from "@sca/testkit";
import { startSourceScanStack, type SourceScanStack } from "./support/source-scan-stack.ts";

let stack: SourceScanStack;
let gitea: SharedGitea;
let appHost: GiteaAppHost;
let domainEvents: EventReader;

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.gateway.origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${stack.dev}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

type ScanJson = Record<string, unknown> & { id: string; status: string; ref: string };

async function scansOf(projectId: string): Promise<ScanJson[]> {
  return (await call("GET", `/v1/projects/${projectId}/scans`)).json.items as ScanJson[];
}

/** A small npm project: one dependency, pinned by its lockfile. */
const NPM_FILES = {
  "package.json": JSON.stringify({ name: "hooked", version: "1.0.0", dependencies: { "left-pad": "^1.3.0" } }, null, 2),
  "package-lock.json": JSON.stringify(
    {
      name: "hooked",
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: {
        "": { name: "hooked", version: "1.0.0", dependencies: { "left-pad": "^1.3.0" } },
        "node_modules/left-pad": {
          version: "1.3.0",
          resolved: "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
          integrity: "sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQEjEGjlkdjBuZYfN/Wxl9SDhkYWZw/Z9DDj6dK9PEyM0j6g==",
        },
      },
    },
    null,
    2,
  ),
};

beforeAll(async () => {
  gitea = await sharedGitea();
  appHost = await startGiteaAppHost(gitea);
  stack = await startSourceScanStack({
    name: "scm-gitea",
    personName: "Hook Person",
    policy: true,
    projectsEnv: { SCM_API_URL: appHost.apiUrl },
  });
  domainEvents = await EventReader.start(stack.projects.kafka!, TOPICS.domainEvents);
}, 180_000);

afterAll(async () => {
  await domainEvents?.stop();
  await stack?.close();
  await appHost?.close();
}, 120_000);

type GiteaComment = { id: number; body: string };

/** Sends a ScanStateChanged's bytes as the scan-orchestrator publishes it, under `eventId`, keyed by the scan. */
async function publishScanState(eventId: string, value: Uint8Array) {
  const producer = stack.projects.kafka!.producer();
  await producer.connect();
  try {
    const message = fromBinary(ScanStateChangedSchema, value);
    await producer.send({
      topic: stack.projects.kafka!.topicName(TOPICS.domainEvents),
      acks: -1,
      messages: [
        {
          key: message.scanId,
          value: Buffer.from(value),
          headers: { [EVENT_ID]: eventId, [EVENT_TYPE]: ScanStateChangedSchema.typeName },
        },
      ],
    });
  } finally {
    await producer.disconnect();
  }
}

describe("webhooks from Gitea", () => {
  it("a push scans the pushed branch to the end; an opened PR scans its head and comments on it by itself", async () => {
    const repo = await gitea.createRepo(`hooked-${randomUUID().slice(0, 8)}`);
    const slug = `g-${randomUUID().slice(0, 8)}`;
    const created = await call("POST", "/v1/projects", {
      name: `Gitea ${slug}`,
      slug,
      team_id: stack.teamId,
      git_url: gitea.cloneUrl(repo),
      default_branch: "main",
    });
    expect(created.status).toBe(201);
    const projectId = created.json.id as string;
    const issued = await call("POST", `/v1/projects/${projectId}/webhook`, { provider: "scm_a" });
    expect(issued.status).toBe(201);
    await gitea.api("POST", `/repos/${repo}/hooks`, {
      type: "gitea",
      active: true,
      events: ["push", "pull_request"],
      config: {
        url: `${stack.gateway.origin}/v1/webhooks/scm_a`,
        content_type: "json",
        secret: issued.json.secret as string,
      },
    });

    const commit = await gitea.push(repo, "feature", NPM_FILES, "Add a dependency");
    const started = await eventually(
      () => scansOf(projectId),
      (items) => items.length > 0,
      30_000,
    );
    expect(started).toMatchObject([{ ref: "refs/heads/feature", trigger: "webhook" }]);
    const finished = await eventually(
      async () => (await call("GET", `/v1/scans/${started[0]!.id}`)).json as ScanJson,
      (scan) => ["succeeded", "failed", "cancelled"].includes(scan.status),
      120_000,
    );
    expect(finished).toMatchObject({ status: "succeeded", error_message: null });
    const components = await call("GET", `/v1/projects/${projectId}/components?scan_id=${started[0]!.id}`);
    expect(components.json.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "left-pad", version: "1.3.0" })]),
    );
    expect(commit).toMatch(/^[0-9a-f]{40}$/);

    // Opted in: the team's app installation links the project to the repository.
    const app = await call("POST", `/v1/scm/apps?team_id=${stack.teamId}`, {
      app_id: appHost.appId,
      private_key: appHost.privateKeyPem,
    });
    expect(app.status).toBe(201);
    const linked = await call("POST", `/v1/scm/apps/${app.json.id as string}/installations`, {
      installation_id: "11",
      project_id: projectId,
      repository_full_name: repo,
    });
    expect(linked.status).toBe(200);

    // A pull request from that branch: Gitea's pull_request webhook (opened) scans refs/pull/<n>/head.
    const pr = await gitea.api<{ number: number }>("POST", `/repos/${repo}/pulls`, {
      head: "feature",
      base: "main",
      title: "Add left-pad",
    });
    const withPr = await eventually(
      () => scansOf(projectId),
      (items) => items.some((s) => s.ref === `refs/pull/${pr.number}/head`),
      30_000,
    );
    expect(withPr.find((s) => s.ref === `refs/pull/${pr.number}/head`)).toMatchObject({
      trigger: "webhook",
      metadata: { webhook_event: "pull_request", pull_request_number: pr.number, base_ref: "refs/heads/main" },
    });

    // Once that scan succeeded, the pull request carries its comment with the gate's verdict, nobody calling the
    // route.
    const prScanId = withPr.find((s) => s.ref === `refs/pull/${pr.number}/head`)!.id;
    const prScan = await eventually(
      async () => (await call("GET", `/v1/scans/${prScanId}`)).json as ScanJson,
      (scan) => ["succeeded", "failed", "cancelled"].includes(scan.status),
      120_000,
    );
    expect(prScan.status).toBe("succeeded");
    const commentsOf = (n: number) => gitea.api<GiteaComment[]>("GET", `/repos/${repo}/issues/${n}/comments`);
    const comments = await eventually(
      () => commentsOf(pr.number),
      (items) => items.length > 0,
      30_000,
    );
    expect(comments).toHaveLength(1);
    const gate = (await call("GET", `/v1/projects/${projectId}/gate-result`)).json;
    const verdict = gate.outcome === "pass" ? "passed" : "failed";
    expect(gate.scan_id).toBe(prScanId);
    expect(comments[0]!.body).toMatch(new RegExp(`^<!-- sca-portal:pr-comment project=${projectId} -->\n`));
    expect(comments[0]!.body).toContain(`**Gate: ${verdict}** (judged on this scan).`);
    expect(comments[0]!.body).toContain("No scan of `refs/heads/main` to compare with");

    // Kafka delivering the success again comments nothing: the comment, edited by hand meanwhile, stays as it is.
    // A later record on the same partition (keyed by the scan) tells when the redelivery was consumed: the same
    // success naming an issue of the repository (issues and pull requests share Gitea's comment API).
    const edited = `${comments[0]!.body}\nEdited by hand.\n`;
    await gitea.api("PATCH", `/repos/${repo}/issues/comments/${comments[0]!.id}`, { body: edited });
    const [success] = await domainEvents.waitFor(
      ScanStateChangedSchema,
      (e) => e.scanId === prScanId && e.status === "succeeded",
    );
    expect(success).toMatchObject({ pullRequestNumber: BigInt(pr.number), pullRequestBaseRef: "refs/heads/main" });
    const record = domainEvents.seen.find(
      (r) =>
        r.type === ScanStateChangedSchema.typeName &&
        fromBinary(ScanStateChangedSchema, r.value).scanId === prScanId &&
        fromBinary(ScanStateChangedSchema, r.value).status === "succeeded",
    )!;
    await publishScanState(record.eventId, record.value);
    const issue = await gitea.api<{ number: number }>("POST", `/repos/${repo}/issues`, { title: "A marker issue" });
    const onIssue = fromBinary(ScanStateChangedSchema, record.value);
    onIssue.pullRequestNumber = BigInt(issue.number);
    await publishScanState(uuidv7(), toBinary(ScanStateChangedSchema, onIssue));
    await eventually(
      () => commentsOf(issue.number),
      (items) => items.length > 0,
      30_000,
    );
    const after = await commentsOf(pr.number);
    expect(after).toHaveLength(1);
    expect(after[0]!.body).toContain("Edited by hand.");
  }, 240_000);
});
