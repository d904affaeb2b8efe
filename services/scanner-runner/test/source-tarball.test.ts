// Uploaded .tar.gz source archives (docs/source-scans.md, "The archive"): extracted into a real workspace under the
// .zip's rules, hostile archives written entry by entry (tar-stream through the test kit's tarOf).
import { lstat, mkdtemp, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { tarOf, type TarEntry } from "@sca/testkit";
import { extractTarball, isGzip } from "../src/fetch/source-tarball.ts";
import { openWorkspace, type Workspace } from "../src/sandbox/workspace.ts";

let workDir: string;
const opened: Workspace[] = [];
const limits = { maxBytes: 64 * 1024 ** 2, maxEntries: 40, maxExpandedBytes: 1024 ** 2 };

async function extract(entries: TarEntry[], over: Partial<typeof limits> = {}) {
  const ws = await openWorkspace(workDir, 65534);
  opened.push(ws);
  const file = join(ws.root, "archive");
  await writeFile(file, gzipSync(await tarOf(entries)));
  expect(await isGzip(file)).toBe(true);
  const result = await extractTarball(file, ws, { ...limits, ...over }, AbortSignal.timeout(30_000));
  return { ws, result };
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "sca-tarball-"));
});

afterAll(async () => {
  for (const ws of opened) await ws.remove();
  await rm(workDir, { recursive: true, force: true });
});

describe("a .tar.gz source archive", () => {
  it("extracts files, directories and links that stay inside, with modes of our own", async () => {
    const { ws, result } = await extract([
      { name: "src/" },
      { name: "src/requirements.txt", data: "Django==3.0.14\n", mode: 0o600 },
      { name: "src/run.sh", data: "#!/bin/sh\n", mode: 0o700 },
      { name: "src/link", symlinkTo: "requirements.txt" },
      { name: "src/copy", hardLinkTo: "src/requirements.txt" },
    ]);
    expect(result).toEqual({ entries: 5, bytes: 25 });
    expect(await readFile(join(ws.tree, "src/requirements.txt"), "utf8")).toBe("Django==3.0.14\n");
    expect((await lstat(join(ws.tree, "src/requirements.txt"))).mode & 0o777).toBe(0o644);
    expect((await lstat(join(ws.tree, "src/run.sh"))).mode & 0o777).toBe(0o755);
    expect(await readlink(join(ws.tree, "src/link"))).toBe("requirements.txt");
    expect((await lstat(join(ws.tree, "src/copy"))).nlink).toBe(2);
  });

  it("refuses .., absolute paths, links leading out, too many entries and a bomb, writing nothing", async () => {
    await expect(extract([{ name: "a/../../x", data: "x" }])).rejects.toThrow(
      "The source archive holds an entry climbing out of the tree with .. (a/../../x).",
    );
    await expect(
      extract([
        { name: "ok", data: "x" },
        { name: "/etc/cron.d/x", data: "x" },
      ]),
    ).rejects.toThrow(/^The source archive holds an entry (with an absolute path \(\/etc\/cron\.d\/x\)|climbing out)/);
    await expect(extract([{ name: "passwd", symlinkTo: "../../../etc/passwd" }])).rejects.toThrow(
      "The source archive holds a symbolic link leading outside the tree (passwd).",
    );
    await expect(extract([{ name: "passwd", symlinkTo: "/etc/passwd" }])).rejects.toThrow(
      "The source archive holds a symbolic link leading outside the tree (passwd).",
    );
    await expect(extract([{ name: "shadow", hardLinkTo: "../etc/shadow" }])).rejects.toThrow(
      "The source archive holds an entry climbing out of the tree with .. (../etc/shadow).",
    );
    await expect(extract(Array.from({ length: 41 }, (_, i) => ({ name: `f${i}`, data: "x" })))).rejects.toThrow(
      "The source archive holds more than 40 entries; SOURCE_ARCHIVE_MAX_ENTRIES allows 40.",
    );
    await expect(extract([{ name: "zeros", data: Buffer.alloc(2 * 1024 ** 2) }])).rejects.toThrow(
      `The source archive expands past SOURCE_ARCHIVE_MAX_EXPANDED_BYTES (${1024 ** 2} bytes); it was not extracted.`,
    );
    const last = opened.at(-1)!;
    await expect(lstat(join(last.tree, "zeros"))).rejects.toThrow();
  });
});
