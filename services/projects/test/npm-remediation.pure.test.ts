// The spec's npm range-rewrite rules (docs/scm.md, "Remediation"): operator style kept, only the number changed,
// every other byte of package.json preserved, each warning code where its case arises.
import { describe, expect, it } from "@jest/globals";
import { editManifest, npmRecommendations, rewriteRange } from "../src/domain/npm-remediation.ts";

const rec = (pkg: string, to: string, from = "0.0.0") => ({
  package: pkg,
  current_version: from,
  recommended_version: to,
});

describe("rewriteRange", () => {
  it("keeps caret, tilde, pinned, a single >= and a v prefix, changing only the number", () => {
    expect(rewriteRange("^1.2.3", "1.4.0")).toMatchObject({ kind: "rewrite", after: "^1.4.0" });
    expect(rewriteRange("~1.2.3", "1.2.9")).toMatchObject({ kind: "rewrite", after: "~1.2.9" });
    expect(rewriteRange("1.2.3", "1.2.9")).toMatchObject({ kind: "rewrite", after: "1.2.9" });
    expect(rewriteRange("=1.2.3", "1.2.9")).toMatchObject({ kind: "rewrite", after: "=1.2.9" });
    expect(rewriteRange(">=1.2.3", "2.0.0")).toMatchObject({ kind: "rewrite", after: ">=2.0.0" });
    expect(rewriteRange("v1.2.3", "1.2.9")).toMatchObject({ kind: "rewrite", after: "v1.2.9" });
    expect(rewriteRange("^v1.2.3", "1.2.9")).toMatchObject({ kind: "rewrite", after: "^v1.2.9" });
  });

  it("turns 1.2.x and 1.x into a caret range", () => {
    expect(rewriteRange("1.2.x", "1.2.5")).toMatchObject({ kind: "rewrite", after: "^1.2.5" });
    expect(rewriteRange("1.x", "1.9.0")).toMatchObject({ kind: "rewrite", after: "^1.9.0" });
    expect(rewriteRange("1.2.*", "1.2.5")).toMatchObject({ kind: "rewrite", after: "^1.2.5" });
  });

  it("leaves *, empty and latest, and calls alias, file, git and compound ranges unparseable", () => {
    for (const r of ["*", "", "latest"]) expect(rewriteRange(r, "1.0.0")).toEqual({ kind: "keep" });
    for (const r of [
      "npm:other@^1.0.0",
      "file:../lib",
      "git+https://example.test/a/b.git",
      "github:a/b",
      "a/b#main",
      ">=1.0.0 <2.0.0",
      "^1.0.0 || ^2.0.0",
      "1.0.0 - 2.0.0",
    ])
      expect(rewriteRange(r, "1.5.0")).toMatchObject({ kind: "unparseable" });
  });
});

describe("editManifest", () => {
  const manifest = `{
  "name": "app",
  "dependencies": {
    "lodash":   "^4.17.15",
    "minimist": "~1.2.0",
    "express": "4.17.1"
  },
  "devDependencies": {"left-pad": "1.x"},
  "scripts": { "test": "jest" }
}
`;

  it("edits only the recommended ranges, byte for byte elsewhere, and asks for the lockfile", () => {
    const edit = editManifest(manifest, [rec("lodash", "4.17.21", "4.17.15"), rec("left-pad", "1.3.0")]);
    expect(edit.ok).toBe(true);
    if (!edit.ok) return;
    expect(edit.changed).toBe(true);
    expect(edit.edited).toBe(
      manifest.replace('"^4.17.15"', '"^4.17.21"').replace('"left-pad": "1.x"', '"left-pad": "^1.3.0"'),
    );
    expect(edit.changes).toEqual([
      { package: "lodash", section: "dependencies", before: "^4.17.15", after: "^4.17.21", changed: true },
      { package: "left-pad", section: "devDependencies", before: "1.x", after: "^1.3.0", changed: true },
    ]);
    expect(edit.warnings.map((w) => w.code)).toEqual(["lockfile_regeneration_required"]);
  });

  it("flags a range already at or above the fix, an absent package and an unusable target", () => {
    const edit = editManifest(manifest, [rec("express", "4.17.0"), rec("react", "18.0.0"), rec("minimist", "latest")]);
    expect(edit).toMatchObject({ ok: true, changed: false, edited: manifest });
    if (!edit.ok) return;
    expect(edit.warnings.map((w) => [w.code, w.package])).toEqual([
      ["already_satisfied", "express"],
      ["package_not_present", "react"],
      ["target_unparseable", "minimist"],
    ]);
    expect(edit.changes).toEqual([
      { package: "express", section: "dependencies", before: "4.17.1", after: "4.17.1", changed: false },
    ]);
  });

  it("warns of values that are not strings, unparseable ranges and repeated keys (the last wins)", () => {
    const odd = '{"dependencies": {"a": 1, "b": "npm:c@^1.0.0", "d": "^1.0.0", "d": "^1.1.0"}}';
    const edit = editManifest(odd, [rec("a", "2.0.0"), rec("b", "2.0.0"), rec("d", "1.2.0")]);
    expect(edit.ok).toBe(true);
    if (!edit.ok) return;
    expect(edit.edited).toBe('{"dependencies": {"a": 1, "b": "npm:c@^1.0.0", "d": "^1.0.0", "d": "^1.2.0"}}');
    expect(edit.warnings.map((w) => w.code).sort()).toEqual(
      ["duplicate_keys_collapsed", "lockfile_regeneration_required", "unparseable_range", "value_not_string"].sort(),
    );
  });

  it("refuses a manifest that is not a JSON object", () => {
    expect(editManifest("[1, 2]", [])).toMatchObject({ ok: false });
    expect(editManifest('{"a": ', [])).toMatchObject({ ok: false });
    expect(editManifest('{"a": 1} trailing', [])).toMatchObject({ ok: false });
  });
});

describe("npmRecommendations", () => {
  it("moves each package to the lowest fix above it that clears every vulnerability", () => {
    expect(
      npmRecommendations([
        { name: "lodash", version: "4.17.15", fixedVersions: [["4.17.19"], ["4.17.21", "3.10.2"], []] },
        { name: "minimist", version: "1.2.0", fixedVersions: [["0.2.1", "1.2.2"], ["1.2.6"]] },
        { name: "express", version: "4.17.1", fixedVersions: [["4.0.0"]] },
        { name: "odd", version: "not-a-version", fixedVersions: [["1.0.0"]] },
      ]),
    ).toEqual([
      { package: "lodash", current_version: "4.17.15", recommended_version: "4.17.21" },
      { package: "minimist", current_version: "1.2.0", recommended_version: "1.2.6" },
    ]);
  });
});
