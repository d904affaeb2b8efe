// The scancode stage over real trees with the real scancode (docs/scancode.md), in the sandbox as scans run it:
// detections with path, license and score; contents scancode read once come from scancode_file_results (a copy of a
// file and an unchanged file are not read again); SCANCODE_MAX_FILES skips the stage before scancode starts;
// SCANCODE_TIMEOUT_SECONDS stops it (declared licenses only); SCANCODE_MAX_RESULT_BYTES drops its output;
// SCANCODE_MAX_DETECTIONS keeps the first detections by path.
import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { scancodeBin, startService, type TestService } from "@sca/testkit";
import { treeLicenses } from "../src/events/first-party-licenses-stage.ts";
import { openWorkspace, type Workspace } from "../src/sandbox/workspace.ts";
import { service } from "../src/service.ts";

const APACHE_HEADER = "// SPDX-License-Identifier: Apache-2.0\nexport const pad = (s, n) => s.padStart(n);\n";
const BSD_HEADER = "/* SPDX-License-Identifier: BSD-3-Clause */\nint main(void) { return 0; }\n";
const MIT = `Permission is hereby granted, free of charge, to any person obtaining a copy
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

let runner: TestService;
const workspaces: Workspace[] = [];

beforeAll(async () => {
  runner = await startService(service, { listen: false, env: { CURRENCY_ENABLED: "false" } });
}, 60_000);

afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.remove();
});

afterAll(async () => {
  await runner?.close();
}, 60_000);

async function tree(files: Record<string, string>): Promise<Workspace> {
  const ws = await openWorkspace("", 65534);
  workspaces.push(ws);
  for (const [path, body] of Object.entries(files)) {
    await mkdir(dirname(join(ws.tree, path)), { recursive: true });
    await writeFile(join(ws.tree, path), body);
  }
  return ws;
}

const limits = (over: { timeoutMs?: number; resultMaxBytes?: number; maxFiles?: number; maxDetections?: number }) => ({
  scancode: {
    bin: scancodeBin(),
    timeoutMs: over.timeoutMs ?? 300_000,
    memoryMb: 2048,
    outputMaxBytes: 1024 * 1024,
    resultMaxBytes: over.resultMaxBytes ?? 256 * 1024 ** 2,
  },
  maxFiles: over.maxFiles ?? 20_000,
  maxDetections: over.maxDetections ?? 5000,
});

function scan(ws: Workspace, over: Parameters<typeof limits>[0] = {}) {
  const lines: string[] = [];
  const done = treeLicenses(runner.orm, limits(over), ws, (_s, l) => lines.push(l), new AbortController().signal);
  return { done, lines };
}

describe("the scancode stage", () => {
  it("finds each file's licenses with path and score, reads a content once, and keeps the first detections", async () => {
    const ws = await tree({
      "COPYING.md": MIT,
      "src/pad.js": APACHE_HEADER,
      // The same bytes as src/pad.js: one content for scancode.
      "vendor/pad-copy.js": APACHE_HEADER,
      "README.md": "A small tree.\n",
      ".git/config": "[core]\n",
    });
    const first = scan(ws, { maxDetections: 2 });
    const found = await first.done;
    expect(found).toMatchObject({ status: "completed", fileCount: 4, scannedFileCount: 3, truncated: true });
    expect(found.detections).toEqual([
      expect.objectContaining({ path: "COPYING.md", license: "MIT", score: 100, matcher: expect.any(String) }),
      expect.objectContaining({ path: "src/pad.js", license: "Apache-2.0", score: 100, startLine: 1, endLine: 1 }),
    ]);

    // The same contents plus one new file: only the new content is read.
    await writeFile(join(ws.tree, "src/main.c"), BSD_HEADER);
    const second = scan(ws);
    const again = await second.done;
    expect(again).toMatchObject({ status: "completed", fileCount: 5, scannedFileCount: 1, truncated: false });
    expect(again.detections.map((d) => [d.path, d.license, d.score])).toEqual([
      ["COPYING.md", "MIT", 100],
      ["src/main.c", "BSD-3-Clause", 100],
      ["src/pad.js", "Apache-2.0", 100],
      ["vendor/pad-copy.js", "Apache-2.0", 100],
    ]);
    expect(second.lines).toContain("5 files, 4 distinct contents, 3 from the cache; scancode reads 1.");

    // Nothing new: scancode does not run at all.
    const third = scan(ws);
    expect(await third.done).toMatchObject({ status: "completed", scannedFileCount: 0 });
    expect(third.lines).toEqual(["All 5 files' contents were scanned before; scancode was not run (content cache)."]);
  }, 240_000);

  it("skips a tree with more files than SCANCODE_MAX_FILES before scancode starts", async () => {
    const ws = await tree({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
    const run = scan(ws, { maxFiles: 2 });
    expect(await run.done).toMatchObject({
      status: "skipped",
      message:
        "The tree has more than SCANCODE_MAX_FILES (2) files; the scancode stage was skipped and the scan keeps the " +
        "declared licenses only.",
      detections: [],
    });
    expect(run.lines).toEqual([]);
    await expect(stat(join(ws.out, "scancode.jsonl"))).rejects.toThrow();
  });

  it("is off with SCANCODE_MAX_FILES 0, even for a tree of one file", async () => {
    const ws = await tree({ LICENSE: `${MIT}\n` });
    const run = scan(ws, { maxFiles: 0 });
    expect(await run.done).toMatchObject({
      status: "skipped",
      message: "The scancode stage is off (SCANCODE_MAX_FILES is 0); the scan keeps the declared licenses only.",
      detections: [],
    });
    expect(run.lines).toEqual([]);
    await expect(stat(join(ws.out, "scancode.jsonl"))).rejects.toThrow();
  });

  it("stops scancode at SCANCODE_TIMEOUT_SECONDS and keeps the declared licenses only", async () => {
    const ws = await tree({ "LICENSE.timeout": `${MIT}\n/* timeout */\n` });
    const started = Date.now();
    expect(await scan(ws, { timeoutMs: 1000 }).done).toMatchObject({
      status: "timed_out",
      message:
        "scancode did not finish within SCANCODE_TIMEOUT_SECONDS (1 s); it was stopped and the scan keeps the " +
        "declared licenses only.",
      detections: [],
    });
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 60_000);

  it("drops the stage's result when scancode's output passes SCANCODE_MAX_RESULT_BYTES", async () => {
    const ws = await tree({ "LICENSE.dropped": `${MIT}\n/* dropped */\n` });
    expect(await scan(ws, { resultMaxBytes: 1024 }).done).toMatchObject({
      status: "dropped",
      message:
        "scancode's output passed SCANCODE_MAX_RESULT_BYTES (1024 bytes); the stage's result was dropped and the " +
        "scan keeps the declared licenses only.",
      detections: [],
    });
  }, 240_000);
});
