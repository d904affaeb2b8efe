// Repository webhooks from a real source host (docs/scm.md): the run's Gitea (@sca/testkit sharedGitea) sends its
// own signed push and pull-request webhooks to the gateway; the scan they start clones the pushed ref from Gitea over
// HTTP (SCAN_GIT_ALLOWED_HOSTS=localhost) and runs through the real scanner-runner to the end.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually, sharedGitea, type SharedGitea } from "@sca/testkit";
import { startSourceScanStack, type SourceScanStack } from "./support/source-scan-stack.ts";

let stack: SourceScanStack;
let gitea: SharedGitea;

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
  // Started side by side (Gitea's first start takes seconds); whichever fails, the stack is still closed.
  const [host, services] = await Promise.allSettled([
    sharedGitea(),
    startSourceScanStack({ name: "scm-gitea", personName: "Hook Person" }),
  ]);
  if (services.status === "fulfilled") stack = services.value;
  if (host.status === "rejected") throw host.reason;
  if (services.status === "rejected") throw services.reason;
  gitea = host.value;
}, 180_000);

afterAll(async () => {
  await stack?.close();
}, 120_000);

describe("webhooks from Gitea", () => {
  it("a push to a repository scans the pushed branch to the end; an opened PR scans its head", async () => {
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
  }, 240_000);
});
