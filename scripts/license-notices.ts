// Generates the license notices of what the portal ships (docs/operations.md, "About and notices"), at build time:
// every production npm package of the workspace as the lockfile resolves it (`pnpm licenses list --prod`, which
// reads the lockfile and the installed packages), with its own license file's text, and the tools the images carry
// (cdxgen, scancode, Kafka) from where they are installed. Writes <out>/index.json and one <id>.txt per notice,
// each file's text verbatim. usage: node scripts/license-notices.ts <out dir> [tools dir ...]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface Notice {
  id: string;
  name: string;
  version: string;
  license: string;
  /** npm, or tool for what the images carry beside node_modules. */
  kind: "npm" | "tool";
}

const LICENSE_FILE = /^(licen[cs]e|copying|notice)([.-].*)?$/i;

/** A notice id: what a URL path segment can carry as it is. */
const idOf = (kind: string, name: string, version: string) =>
  `${kind}-${name.replace(/^@/, "").replaceAll("/", "__")}-${version}`.replace(/[^A-Za-z0-9._-]/g, "_");

/** The license files directly in `dir`, their texts joined (a package may ship LICENSE and NOTICE). */
function licenseTexts(dir: string): string {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => LICENSE_FILE.test(n) && statSync(join(dir, n)).isFile());
  } catch {
    return "";
  }
  return names
    .sort()
    .map((n) => readFileSync(join(dir, n), "utf8"))
    .join("\n\n");
}

function npmNotices(root: string): [Notice, string][] {
  const listing = JSON.parse(
    execFileSync("pnpm", ["-r", "licenses", "list", "--json", "--prod"], { cwd: root, maxBuffer: 256 * 1024 ** 2 })
      .toString()
      .trim() || "{}",
  ) as Record<string, { name: string; versions: string[]; paths: string[]; license: string }[]>;
  const found: [Notice, string][] = [];
  for (const packages of Object.values(listing)) {
    for (const p of packages) {
      p.versions.forEach((version, i) => {
        const text = licenseTexts(p.paths[i] ?? p.paths[0] ?? "");
        const notice = {
          id: idOf("npm", p.name, version),
          name: p.name,
          version,
          license: p.license,
          kind: "npm" as const,
        };
        found.push([
          notice,
          text || `${p.name} ${version} is licensed under ${p.license}; it ships no license file.\n`,
        ]);
      });
    }
  }
  return found;
}

/** cdxgen, scancode and Kafka where a tools directory holds them (the checkout's .tools, an image's /opt/scanners). */
function toolNotices(toolsDir: string): [Notice, string][] {
  const found: [Notice, string][] = [];
  const add = (name: string, version: string, dir: string) => {
    const text = licenseTexts(dir);
    if (text) found.push([{ id: idOf("tool", name, version), name, version, license: "", kind: "tool" }, text]);
  };
  for (const entry of existsSync(toolsDir) ? readdirSync(toolsDir) : []) {
    const dir = join(toolsDir, entry);
    const version = /-(\d[\w.]*)/.exec(entry)?.[1] ?? "";
    if (entry.startsWith("cdxgen")) add("cdxgen", version, join(dir, "node_modules/@cyclonedx/cdxgen"));
    if (entry.startsWith("kafka")) add("kafka", version, dir);
    if (entry.startsWith("scancode")) {
      const site = join(dir, "lib");
      for (const python of existsSync(site) ? readdirSync(site) : []) {
        const packages = join(site, python, "site-packages");
        for (const info of existsSync(packages) ? readdirSync(packages) : []) {
          const m = /^scancode_toolkit-(.+)\.dist-info$/.exec(info);
          if (m) add("scancode", m[1]!, join(packages, info, "licenses"));
        }
      }
    }
  }
  return found;
}

const [out, ...toolsDirs] = process.argv.slice(2);
if (!out) {
  console.error("usage: node scripts/license-notices.ts <out dir> [tools dir ...]");
  process.exit(2);
}
const root = new URL("..", import.meta.url).pathname;
const all = [...npmNotices(root), ...toolsDirs.flatMap(toolNotices)];
const unique = new Map(all.map(([n, text]) => [n.id, { notice: n, text }]));
// Written beside `out`, then swapped in: two set-ups running at once (./dev up beside ./dev test) each write a whole
// directory of their own, and the portal never reads a half-written one.
const staged = `${out}.partial-${process.pid}`;
mkdirSync(staged, { recursive: true });
const notices = [...unique.values()].map((u) => u.notice).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
for (const { notice, text } of unique.values()) writeFileSync(join(staged, `${notice.id}.txt`), text);
writeFileSync(join(staged, "index.json"), `${JSON.stringify({ notices }, null, 2)}\n`);
const previous = `${out}.previous-${process.pid}`;
try {
  renameSync(out, previous);
} catch {
  // None yet, or another set-up moved it away first.
}
try {
  renameSync(staged, out);
} catch {
  // Another set-up swapped its own in meanwhile: the same notices.
  rmSync(staged, { recursive: true, force: true });
}
rmSync(previous, { recursive: true, force: true });
console.log(`${notices.length} license notices written to ${out}`);
