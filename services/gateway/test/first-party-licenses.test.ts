// The scancode first-party license stage end to end (docs/scancode.md): a repository the test builds (an MIT LICENSE
// file, a source file with an SPDX header, a small npm manifest) served by a real git server on loopback, scanned
// through the gateway with the real cdxgen and the real scancode; the detections come back through the gateway with
// their paths and match scores. The same tree scanned again does not run scancode: its log says every content came
// from the content cache and the stage records no file read.
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ScanLogLineSchema, ScanProgressSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { scancodeBin, startGitServer, type EventReader, type TestGitServer } from "@sca/testkit";
import type { TestGateway } from "./harness.ts";
import { startSourceScanStack, type SourceScanStack } from "./support/source-scan-stack.ts";

const MIT = `MIT License

Copyright (c) 2026 Example Maintainers

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`;

const TREE = {
  LICENSE: MIT,
  "src/index.js": "// SPDX-License-Identifier: Apache-2.0\nmodule.exports = (s, n) => s.padStart(n);\n",
  "package.json": JSON.stringify({ name: "licensed", version: "1.0.0", dependencies: { "left-pad": "1.3.0" } }),
  "package-lock.json": JSON.stringify({
    name: "licensed",
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name: "licensed", version: "1.0.0", dependencies: { "left-pad": "1.3.0" } },
      "node_modules/left-pad": {
        version: "1.3.0",
        resolved: "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
      },
    },
  }),
};

let stack: SourceScanStack;
let git: TestGitServer;
let gateway: TestGateway;
let events: EventReader;
let dev: string;
let teamId: string;

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${gateway.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${dev}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function scanOf(projectId: string): Promise<Record<string, unknown>> {
  const created = await call("POST", `/v1/projects/${projectId}/scans`, { kind: "source" });
  expect(created.status).toBe(202);
  let scan = created.json;
  for (const deadline = Date.now() + 180_000; !["succeeded", "failed", "cancelled"].includes(scan.status as string);) {
    if (Date.now() > deadline) throw new Error(`the scan is still ${scan.status as string}`);
    await delay(250);
    scan = (await call("GET", `/v1/scans/${created.json.id as string}`)).json;
  }
  return scan;
}

beforeAll(async () => {
  git = await startGitServer();
  await git.repo("licensed", TREE);
  stack = await startSourceScanStack({
    name: "first-party",
    personName: "License Person",
    runnerEnv: { SCANCODE_BIN: scancodeBin(), CURRENCY_ENABLED: "false" },
  });
  ({ events, gateway, teamId, dev } = stack);
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await git?.stop();
}, 120_000);

describe("first-party licenses of a source scan", () => {
  it("answers scancode's detections with path and score, and rescans an unchanged tree from the content cache", async () => {
    const slug = `fp-${randomUUID().slice(0, 8)}`;
    const created = await call("POST", "/v1/projects", {
      name: `P ${slug}`,
      slug,
      team_id: teamId,
      git_url: `http://localhost:${git.port}/licensed.git`,
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;

    const first = await scanOf(id);
    expect(first).toMatchObject({ status: "succeeded", error_message: null });
    const listed = await call("GET", `/v1/projects/${id}/licenses/files?scan_id=${first.id as string}`);
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({
      scan_id: first.id,
      scancode: { status: "completed", file_count: 4, scanned_file_count: 4, truncated: false },
      total: 3,
    });
    const items = listed.json.items as Record<string, unknown>[];
    expect(items).toEqual([
      // The title line and the text: two matches of one license.
      expect.objectContaining({ path: "LICENSE", license: "MIT", score: 100, start_line: 1, end_line: 1 }),
      expect.objectContaining({ path: "LICENSE", license: "MIT", score: 100, start_line: 5, end_line: 21 }),
      expect.objectContaining({ path: "src/index.js", license: "Apache-2.0", score: 100, start_line: 1, end_line: 1 }),
    ]);
    // The stage's frames carry the spec's stage name.
    const steps = (await events.waitFor(ScanProgressSchema, (p) => p.scanId === first.id && !p.heartbeat, 0)).map(
      (p) => p.step,
    );
    expect(steps).toContain("scancode");
    const firstLines = await events.waitFor(ScanLogLineSchema, (l) => l.scanId === first.id && l.stage === "scancode");
    expect(firstLines.some((l) => /scancode reads 4\./.test(l.line))).toBe(true);

    const second = await scanOf(id);
    expect(second).toMatchObject({ status: "succeeded" });
    const again = await call("GET", `/v1/projects/${id}/licenses/files`);
    expect(again.json).toMatchObject({
      scan_id: second.id,
      scancode: { status: "completed", file_count: 4, scanned_file_count: 0 },
      total: 3,
      items,
    });
    const lines = await events.waitFor(
      ScanLogLineSchema,
      (l) => l.scanId === second.id && l.stage === "scancode" && /scancode was not run \(content cache\)/.test(l.line),
    );
    expect(lines).toHaveLength(1);

    // A path filter; a project the caller cannot read is 404.
    const filtered = await call("GET", `/v1/projects/${id}/licenses/files?path=SRC/`);
    expect(filtered.json).toMatchObject({ total: 1, items: [expect.objectContaining({ path: "src/index.js" })] });
    expect((await call("GET", `/v1/projects/${randomUUID()}/licenses/files`)).status).toBe(404);
  }, 400_000);
});
