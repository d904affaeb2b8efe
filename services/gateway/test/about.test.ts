// About through a real gateway, identity and admin: the build's identity from its keys, PostgreSQL's version from
// admin, the advisory database's as null while the scanner-runner does not answer (the page still answers), and the
// license notices scripts/license-notices.ts generates from the lockfile and the installed packages, each served
// verbatim as text/plain (compared with the package's own LICENSE file).
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { closeTogether, fixturesOf, startService, uniqueName, type TestService } from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { gatewayRequest, type GatewayRequest } from "./support/gateway-request.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
let identity: TestService;
let admin: TestService;
let gateway: TestGateway;
let request: GatewayRequest;
let notices: string;
let token: string;

beforeAll(async () => {
  notices = await mkdtemp(join(tmpdir(), "sca-gw-notices-"));
  // The generator as the set-up runs it (the tools directory left out: the npm packages suffice here).
  execFileSync(process.execPath, [join(ROOT, "scripts/license-notices.ts"), notices], { cwd: ROOT });
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  admin = await startService("admin", { env: { BACKUP_AUTO_EVERY_HOURS: "0" } });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { admin: admin.url! },
    env: {
      SERVICE_VERSION: "1.4.2",
      SERVICE_COMMIT: "0123abc",
      SERVICE_BUILT_AT: "2026-11-28T12:00:00Z",
      NOTICES_DIR: notices,
    },
  });
  request = gatewayRequest(gateway.origin);
  const people = await fixturesOf("identity");
  token = await people.accessToken(await people.user(identity.orm, { fullName: `P ${randomUUID()}` }));
}, 60_000);

afterAll(async () => {
  await closeTogether([gateway, admin, identity].filter(Boolean));
  if (notices) await rm(notices, { recursive: true, force: true });
});

type Notice = { id: string; name: string; version: string; license: string; kind: string };

describe("GET /v1/about", () => {
  it("answers the deployment's identity, the database versions it can learn, and every notice", async () => {
    const r = await request("GET", "/v1/about", { bearer: token });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      version: "1.4.2",
      commit: "0123abc",
      built_at: "2026-11-28T12:00:00Z",
      database_version: expect.stringMatching(/^\d+(\.\d+)?/),
      advisory_database_version: null,
      advisories_imported_at: null,
    });
    const list = r.json.notices as Notice[];
    expect(r.json.total).toBe(list.length);
    expect(list.length).toBe((await readdir(notices)).filter((f) => f.endsWith(".txt")).length);
    expect(list).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "busboy", license: "MIT", kind: "npm" })]),
    );
    expect(list.map((n) => n.id)).toEqual([...list.map((n) => n.id)].sort());
  });

  it("is for signed-in callers", async () => {
    expect((await request("GET", "/v1/about")).status).toBe(401);
  });
});

describe("GET /v1/about/notices/{document_id}", () => {
  it("serves a notice verbatim as text/plain: the package's own license file", async () => {
    const list = (await request("GET", "/v1/about", { bearer: token })).json.notices as Notice[];
    const busboy = list.find((n) => n.name === "busboy")!;
    const r = await request("GET", `/v1/about/notices/${busboy.id}`, { bearer: token });
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^text\/plain/);
    const shipped = await readFile(
      join(ROOT, `node_modules/.pnpm/busboy@${busboy.version}/node_modules/busboy/LICENSE`),
      "utf8",
    );
    expect(r.text).toBe(shipped);
  });

  it("answers 404 for an id it does not hold, paths included", async () => {
    for (const id of ["npm-nothing-0.0.0", "..%2Findex.json", "index"]) {
      const r = await request("GET", `/v1/about/notices/${id}`, { bearer: token });
      expect(r.status).toBe(404);
    }
  });
});
