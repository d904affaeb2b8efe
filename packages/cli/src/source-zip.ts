// `sca scan source DIR`: the directory zipped as it is uploaded (fflate's streaming Zip), one file open at a time.
// Left out: .git (history, not source) and node_modules (installed packages; cdxgen reads the lockfiles, and an
// installed tree can be hundreds of MiB): docs/ci.md says so.
import { createReadStream } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { Zip, ZipDeflate } from "fflate";
import type { Body } from "./upload.ts";

const SKIPPED = new Set([".git", "node_modules"]);

async function* filesUnder(root: string, dir: string = root): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(root, path);
    else if (entry.isFile()) yield path;
  }
}

export function directoryZip(root: string): Body {
  return {
    contentType: "application/zip",
    size: null,
    open() {
      let zip: Zip;
      return new ReadableStream<Uint8Array>({
        start(controller) {
          zip = new Zip((err, chunk, final) => {
            if (err) return controller.error(err);
            controller.enqueue(chunk);
            if (final) controller.close();
          });
          void (async () => {
            try {
              for await (const path of filesUnder(root)) {
                const entry = new ZipDeflate(relative(root, path).split(sep).join("/"), { level: 6 });
                zip.add(entry);
                for await (const chunk of createReadStream(path)) entry.push(chunk as Uint8Array);
                entry.push(new Uint8Array(0), true);
              }
              zip.end();
            } catch (err) {
              controller.error(err);
            }
          })();
        },
      });
    },
  };
}
