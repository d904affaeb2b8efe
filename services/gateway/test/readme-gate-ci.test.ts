// The README's CI recipe for the build gate, run as written: the bash block after the `gate-ci` marker goes to bash
// unchanged, against a portal of the test's own (identity, projects, policy, scanner-runner and a gateway, started
// by the test kit), with a project-scoped read-only API key issued through the API. It exits 1 while Log4Shell is
// open, 0 once the finding is triaged not_affected, 2 when the key is refused.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startGateStack, type GateStack } from "./gate-stack.ts";

const README = new URL("../../../README.md", import.meta.url);
const MARKER = "<!-- gate-ci:";

/** The fenced bash block right after the marker, byte for byte. */
function gateCiBlock(readme: string): string {
  const at = readme.indexOf(MARKER);
  if (at < 0) throw new Error(`README.md has no ${MARKER} marker`);
  const block = /^```bash\n([\s\S]*?)^```$/m.exec(readme.slice(at));
  if (!block || readme.slice(at, at + block.index).split("\n").length > 2)
    throw new Error("the gate-ci marker must be followed by a ```bash block on the next line");
  return block[1]!;
}

let s: GateStack;
let projectId: string;
let developer: string;
let apiKey: string;

async function runRecipe(key: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = gateCiBlock(await readFile(README, "utf8"));
  return promisify(execFile)("bash", ["--norc", "--noprofile", "-c", script], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SCA_API: s.gateway.origin,
      SCA_API_KEY: key,
      SCA_PROJECT_ID: projectId,
    },
    timeout: 30_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code ?? -1,
      stdout: err.stdout ?? "",
      stderr: err.stderr ?? "",
    }),
  );
}

beforeAll(async () => {
  s = await startGateStack();
  const team = await s.team();
  const admin = await s.person([[team.id, "team_admin"]]);
  developer = (await s.person([[team.id, "developer"]])).token;
  projectId = await s.projectWithFindings(team.id, admin.token);
  // Identity learns of the project from projects' events: the key can be issued once it has.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const issued = await s.request("POST", "/v1/api-keys", {
      bearer: admin.token,
      body: {
        name: "ci gate",
        scope: "project",
        team_id: team.id,
        project_id: projectId,
        permission_breadth: "read_only",
      },
    });
    if (issued.status === 201) {
      expect(issued.json).toMatchObject({ scope: "project", project_id: projectId, permission_breadth: "read_only" });
      apiKey = issued.json.raw_key as string;
      break;
    }
    if (Date.now() > deadline) throw new Error(`no API key: ${issued.status} ${issued.text}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 180_000);

afterAll(async () => {
  await s?.close();
});

describe("README: the build gate in CI", () => {
  it("fails the build while a critical finding is open, naming it; passes once it is triaged", async () => {
    const failing = await runRecipe(apiKey);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/^gate: fail - scan [0-9a-f-]{36}$/m);
    expect(failing.stdout).toContain("CVE-2021-44228");

    const list = await s.request("GET", `/v1/projects/${projectId}/vulnerabilities?severity=critical`, {
      bearer: developer,
    });
    const finding = (list.json.items as { id: string; version: number }[])[0]!;
    const triaged = await s.request("PATCH", `/v1/vulnerability_findings/${finding.id}/status`, {
      bearer: developer,
      headers: { "if-match": `"${finding.version}"` },
      body: { status: "not_affected", justification: "code_not_reachable" },
    });
    expect(triaged.status).toBe(200);

    const passing = await runRecipe(apiKey);
    expect(passing).toMatchObject({ code: 0 });
    expect(passing.stdout).toMatch(/^gate: pass - scan /m);
  }, 60_000);

  it("exits 2 when the portal refuses the key", async () => {
    const refused = await runRecipe("sca_not_a_real_key");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("gate: the portal did not answer");
  }, 30_000);
});
