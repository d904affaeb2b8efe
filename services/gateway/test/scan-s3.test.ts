// An SBOM scan end to end with ARTEFACT_BACKEND=s3 against a real local S3 server (moto, scripts/setup/s3.sh): the
// gateway streams the upload into the bucket, the scanner-runner reads it from there and writes the inventory
// artefact there, projects ingests it from there; no process is given an artefact directory it could fall back on.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import {
  closeTogether,
  callAs,
  fixturesOf,
  sharedDir,
  startS3Server,
  startService,
  uniqueName,
  type TestS3Server,
  type TestService,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

const SBOM = join(sharedDir(), "data", "sbom", "cyclonedx", "cern-lhc-vdm-editor-e564943.cdx-1.2.json");

let s3: TestS3Server;
let bucket: string;
let identity: TestService;
let projects: TestService;
let scans: TestService;
let runner: TestService;
let gateway: TestGateway;

async function call(method: string, path: string, bearer: string, body?: unknown, contentType = "application/json") {
  const res = await fetch(`${gateway.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { "content-type": contentType }) },
    body:
      body === undefined ? undefined : typeof body === "string" || body instanceof Buffer ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

beforeAll(async () => {
  s3 = await startS3Server();
  bucket = `sca-e2e-${randomUUID().slice(0, 8)}`;
  await s3.createBucket(bucket);
  const artefactStore = {
    ARTEFACT_BACKEND: "s3",
    // A directory that is never made: a fallback to the directory backend would fail the scan.
    ARTEFACT_DIR: `/nonexistent/${randomUUID()}`,
    ARTEFACT_S3_ENDPOINT: s3.endpoint,
    ARTEFACT_S3_BUCKET: bucket,
    ARTEFACT_S3_REGION: s3.region,
    ARTEFACT_S3_ACCESS_KEY_ID: s3.accessKeyId,
    ARTEFACT_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    ARTEFACT_S3_FORCE_PATH_STYLE: "true",
  };
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("s3_scan")}.`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  projects = await startService("projects", {
    env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX, ...artefactStore },
  });
  scans = await startService("scan-orchestrator", {
    env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX, ...artefactStore },
  });
  runner = await startService("scanner-runner", {
    env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX, ...artefactStore },
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, "scan-orchestrator": scans.url! },
    env: artefactStore,
  });
}, 180_000);

afterAll(async () => {
  await closeTogether([gateway, runner, scans, projects, identity]);
  await s3?.stop();
}, 120_000);

describe("an SBOM scan over the S3 artefact store", () => {
  it("uploads into the bucket, scans from it and ingests the inventory the worker left there", async () => {
    const fixtures = await fixturesOf("identity");
    const admin = await callAs.superAdmin(randomUUID());
    const slug = `team-${randomUUID().slice(0, 8)}`;
    const { team } = await identity.client(DirectoryService).createTeam({ name: `Team ${slug}`, slug }, admin);
    const userId = await fixtures.user(identity.orm, { fullName: "S3 Person" });
    await identity.client(DirectoryService).addTeamMember({ teamId: team!.id, userId, role: "developer" }, admin);
    const dev = await fixtures.accessToken(userId);
    const project = await call("POST", "/v1/projects", dev, { name: `P ${slug}`, slug, team_id: team!.id });
    expect(project.status).toBe(201);
    const projectId = project.json.id as string;

    const uploaded = await call("POST", `/v1/projects/${projectId}/sbom-uploads`, dev, await readFile(SBOM));
    expect(uploaded.status).toBe(201);
    const uploadId = uploaded.json.upload_id as string;
    const [uploadKey, ...others] = await s3.keysOf(bucket);
    expect(others).toEqual([]);
    expect(uploadKey).toMatch(new RegExp(`^uploads/${projectId}/[0-9a-f-]{36}$`));

    const created = await call("POST", `/v1/projects/${projectId}/scans`, dev, {
      kind: "sbom",
      sbom_upload_id: uploadId,
    });
    expect(created.status).toBe(202);
    const scanId = created.json.id as string;
    let scan: Record<string, unknown> = created.json;
    for (
      const deadline = Date.now() + 120_000;
      !["succeeded", "failed", "cancelled"].includes(scan.status as string);
    ) {
      if (Date.now() > deadline) throw new Error(`the scan is still ${scan.status as string}`);
      await delay(250);
      scan = (await call("GET", `/v1/scans/${scanId}`, dev)).json;
    }
    expect(scan).toMatchObject({ status: "succeeded", error_message: null });

    const components = await call("GET", `/v1/projects/${projectId}/components?limit=1`, dev);
    expect(components.json).toMatchObject({ total: 43 });
    expect(await s3.keysOf(bucket)).toEqual([`scans/${scanId}/inventory.binpb`, uploadKey]);
  }, 180_000);
});
