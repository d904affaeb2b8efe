// The Go release a go.mod names, read as OSV-Scanner's go.mod extractor reads it (the toolchain directive first),
// and the standard library and toolchain components made of it (docs/source-scans.md). Which advisories they match
// is compared with OSV-Scanner's in test/manifests-oracle.test.ts.
import { describe, expect, it } from "@jest/globals";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { sharedDir } from "@sca/testkit";
import { goModToolchainOf, goToolchainComponents } from "../src/domain/sbom/go-toolchain.ts";
import { addComponents, COMPONENT_SOURCE_PROPERTY } from "../src/domain/sbom/inventory.ts";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";

const goMod = (...lines: string[]) => ["module example.com/m", "", ...lines, ""].join("\n");

describe("the Go release of a go.mod", () => {
  it("is gh-cli's toolchain directive (go1.22.6), not its go directive (1.22.5)", async () => {
    const text = await readFile(join(sharedDir(), "data", "manifests", "gh-cli", "go.mod"), "utf8");
    expect(goModToolchainOf("go.mod", text)).toEqual({
      path: "go.mod",
      version: "1.22.6",
      directive: "toolchain",
      line: 5,
    });
  });

  it("is the go directive's when there is no toolchain directive, as written (1.21 stays 1.21)", () => {
    expect(goModToolchainOf("a/go.mod", goMod("go 1.21.0"))).toMatchObject({ version: "1.21.0", directive: "go" });
    expect(goModToolchainOf("go.mod", goMod("go 1.21"))).toMatchObject({ version: "1.21", line: 3 });
    expect(goModToolchainOf("go.mod", goMod("go 1.16 // old"))).toMatchObject({ version: "1.16" });
    expect(goModToolchainOf("go.mod", goMod("go 1.23rc1"))).toMatchObject({ version: "1.23rc1" });
    expect(goModToolchainOf("go.mod", goMod("\tgo  1.22.5\r"))).toMatchObject({ version: "1.22.5" });
  });

  it("drops a toolchain name's go prefix and -suffix, and falls back to the go directive when it names no release", () => {
    expect(goModToolchainOf("go.mod", goMod("go 1.22.5", "toolchain go1.21.3-custom"))).toMatchObject({
      version: "1.21.3",
      directive: "toolchain",
    });
    expect(goModToolchainOf("go.mod", goMod("toolchain go1.23rc1", "go 1.22"))).toMatchObject({
      version: "1.23rc1",
      line: 3,
    });
    expect(goModToolchainOf("go.mod", goMod("go 1.22.5", "toolchain default"))).toMatchObject({
      version: "1.22.5",
      directive: "go",
    });
  });

  it("is none when no directive names a valid release once, outside a block", () => {
    expect(goModToolchainOf("go.mod", goMod("require example.com/x v1.0.0"))).toBeNull();
    expect(goModToolchainOf("go.mod", goMod("go 1.21.0.1"))).toBeNull();
    expect(goModToolchainOf("go.mod", goMod("go v1.21.0"))).toBeNull();
    expect(goModToolchainOf("go.mod", goMod("go 1.21.0", "go 1.22.0"))).toBeNull();
    expect(goModToolchainOf("go.mod", goMod("// go 1.21.0"))).toBeNull();
    expect(goModToolchainOf("go.mod", goMod("require (", "\tgo 1.21.0", ")"))).toBeNull();
    expect(goModToolchainOf("go.mod", goMod("require (", "\texample.com/x v1.0.0", ")", "go 1.20"))).toMatchObject({
      version: "1.20",
    });
  });
});

describe("the standard library and toolchain components", () => {
  const toolchains = [
    { path: "go.mod", version: "1.22.6", directive: "toolchain" as const, line: 5 },
    { path: "tools/go.mod", version: "1.22.6", directive: "go" as const, line: 3 },
    { path: "legacy/go.mod", version: "1.16", directive: "go" as const, line: 3 },
  ];

  it("are one of each per Go release, with the go.mod files naming it as evidence", () => {
    const components = goToolchainComponents(toolchains);
    expect(components.map((c) => c.purl)).toEqual([
      "pkg:golang/stdlib@1.22.6",
      "pkg:golang/toolchain@1.22.6",
      "pkg:golang/stdlib@1.16",
      "pkg:golang/toolchain@1.16",
    ]);
    const { rawJson, ...fields } = components[0]!;
    expect(fields).toEqual({
      key: "pkg:golang/stdlib@1.22.6",
      refs: [],
      type: "library",
      group: null,
      name: "stdlib",
      version: "1.22.6",
      purl: "pkg:golang/stdlib@1.22.6",
      cpe: null,
      hashes: [],
      declaredLicense: "BSD-3-Clause",
      concludedLicense: null,
      licenseIds: ["BSD-3-Clause"],
      supplier: null,
      author: null,
      description: "The Go standard library",
      scope: null,
      direct: null,
      depth: null,
    });
    expect(JSON.parse(rawJson)).toEqual({
      purl: "pkg:golang/stdlib@1.22.6",
      properties: [{ name: COMPONENT_SOURCE_PROPERTY, value: "go.mod" }],
      evidence: {
        occurrences: [
          { location: "go.mod", line: 5 },
          { location: "tools/go.mod", line: 3 },
        ],
      },
      fileCount: 2,
    });
    expect(components[1]).toMatchObject({ name: "toolchain", type: "application", version: "1.22.6" });
  });

  it("are added once: a component the SBOM already lists stays as the SBOM has it", () => {
    const inventory = readSbom(
      Buffer.from(
        JSON.stringify({
          bomFormat: "CycloneDX",
          specVersion: "1.6",
          components: [{ type: "library", name: "stdlib", version: "1.16", purl: "pkg:golang/stdlib@1.16" }],
        }),
      ),
    );
    expect(addComponents(inventory, goToolchainComponents(toolchains))).toBe(3);
    expect(inventory.components.map((c) => [c.purl, c.description])).toEqual([
      ["pkg:golang/stdlib@1.16", null],
      ["pkg:golang/stdlib@1.22.6", "The Go standard library"],
      ["pkg:golang/toolchain@1.22.6", "The Go toolchain: the go command, compiler and linker"],
      ["pkg:golang/toolchain@1.16", "The Go toolchain: the go command, compiler and linker"],
    ]);
  });
});
