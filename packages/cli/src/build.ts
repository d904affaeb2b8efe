// The published `sca`: the CLI and every library it uses bundled by rolldown into one ES module, bin/sca.mjs, beside
// a package.json with no dependencies, so `npm pack` of the output directory is a package that installs and runs with
// plain Node (no pnpm, no workspace, no TypeScript). The version is this package's.
//   node packages/cli/src/build.ts [OUT_DIR]   (default packages/cli/dist)
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));

/** Builds the package into `out`; answers the path of its executable. */
export async function buildCli(out: string): Promise<string> {
  const source = JSON.parse(await readFile(join(PACKAGE, "package.json"), "utf8")) as {
    version: string;
    description: string;
  };
  await rm(out, { recursive: true, force: true });
  await mkdir(join(out, "bin"), { recursive: true });
  await build({
    input: join(PACKAGE, "src/main.ts"),
    platform: "node",
    // The progress library's optional terminal colour helpers are never loaded by what sca uses.
    logLevel: "warn",
    output: {
      file: join(out, "bin/sca.mjs"),
      format: "esm",
      // One file: main.ts imports the program dynamically only to turn the compile cache on first.
      codeSplitting: false,
      // main.ts's #! line is kept at the top: the file runs as an executable.
      minify: true,
    },
  });
  // program.ts reads the version from ../package.json: here, this one.
  const manifest = {
    name: "@sca/cli",
    version: source.version,
    description: source.description,
    type: "module",
    bin: { sca: "bin/sca.mjs" },
    files: ["bin"],
    // enableCompileCache, util.styleText and the global WebSocket: what CI images give as Node 24.
    engines: { node: ">=24" },
    license: "UNLICENSED",
  };
  await writeFile(join(out, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return join(out, "bin/sca.mjs");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? join(PACKAGE, "dist"));
  process.stdout.write(`${await buildCli(out)}\n`);
}
