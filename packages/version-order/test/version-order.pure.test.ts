import { execFileSync } from "node:child_process";
import { describe, expect, it } from "@jest/globals";
import {
  compareApkVersions,
  compareRpmVersions,
  inVersionRange,
  isVersionRange,
  parseVersionRange,
  rpmvercmp,
  schemeOf,
} from "../src/index.ts";

/** a < b under the ecosystem's scheme (and b > a, a = a). */
function expectOrdered(ecosystem: string, ascending: string[]) {
  const scheme = schemeOf(ecosystem);
  if (!scheme) throw new Error(`no scheme for ${ecosystem}`);
  const parsed = ascending.map((v) => {
    const p = scheme.parse(v);
    if (p === null) throw new Error(`${ecosystem} cannot read ${v}`);
    return p;
  });
  for (let i = 0; i + 1 < parsed.length; i++) {
    expect([ascending[i], scheme.compare(parsed[i], parsed[i + 1])]).toEqual([ascending[i], -1]);
    expect(scheme.compare(parsed[i + 1], parsed[i])).toBe(1);
    expect(scheme.compare(parsed[i], parsed[i])).toBe(0);
  }
}

describe("version ordering per ecosystem", () => {
  it("npm and crates.io: SemVer, prereleases before their release", () => {
    expectOrdered("npm", ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta.2", "1.0.0-rc.1", "1.0.0", "1.2.0", "1.10.0"]);
    expectOrdered("crates.io", ["0.9.9", "1.0.0-pre", "1.0.0"]);
    expect(schemeOf("npm")?.parse("not-a-version")).toBeNull();
    const npm = schemeOf("npm")!;
    expect(npm.compare(npm.parse("1.2"), npm.parse("1.2.0"))).toBe(0);
    expect(npm.compare(npm.parse("2"), npm.parse("2.0.0"))).toBe(0);
  });

  it("Go: v prefix, pseudo-versions before the release they precede, +incompatible ignored, toolchains", () => {
    expectOrdered("Go", [
      "v0.0.0-20191109021931-daa7c04131f5",
      "v0.0.0-20200101000000-aaaaaaaaaaaa",
      "v0.1.0",
      "v1.2.3-pre.0.20210101000000-abcdefabcdef",
      "v1.2.3",
      "v2.0.0+incompatible",
      "v2.1.0",
    ]);
    const go = schemeOf("Go")!;
    expect(go.compare(go.parse("v1.2.3"), go.parse("1.2.3"))).toBe(0);
    expect(go.compare(go.parse("go1.21"), go.parse("1.21.0"))).toBe(0);
    expectOrdered("Go", ["go1.21rc2", "go1.21", "go1.21.1"]);
  });

  it("PyPI: PEP 440 dev < pre < final < post, epochs", () => {
    expectOrdered("PyPI", ["1.0.dev1", "1.0a1", "1.0b2", "1.0rc1", "1.0", "1.0.post1", "1.1", "1!0.1"]);
    const py = schemeOf("PyPI")!;
    expect(py.compare(py.parse("1.0"), py.parse("1.0.0"))).toBe(0);
  });

  it("Maven: ComparableVersion qualifiers", () => {
    expectOrdered("Maven", [
      "1.0-alpha-1",
      "1.0-beta-1",
      "1.0-milestone-1",
      "1.0-rc-1",
      "1.0-SNAPSHOT",
      "1.0",
      "1.0-sp-1",
      "1.0.1",
      "2.9.10",
      "2.9.10.1",
    ]);
    const mvn = schemeOf("Maven")!;
    expect(mvn.compare(mvn.parse("1.0.RELEASE"), mvn.parse("1.0"))).toBe(0);
    expect(mvn.compare(mvn.parse("1.0-final"), mvn.parse("1.0"))).toBe(0);
  });

  it("NuGet: four numbers, case-insensitive prerelease", () => {
    expectOrdered("NuGet", ["1.0.0-beta", "1.0.0", "1.0.0.1", "1.0.1"]);
    const nu = schemeOf("NuGet")!;
    expect(nu.compare(nu.parse("1.0.0-Beta"), nu.parse("1.0.0-beta"))).toBe(0);
  });

  it("RubyGems: a letter makes a prerelease", () => {
    expectOrdered("RubyGems", ["1.0.0.pre1", "1.0.0.rc1", "1.0.0", "1.9", "1.10"]);
  });

  it("Debian and Ubuntu: dpkg epochs, tildes and revisions", () => {
    expectOrdered("Debian:12", ["1.0~rc1", "1.0", "1.0-1", "1.0-1+deb12u1", "1.0-2", "1:0.1"]);
    expectOrdered("Ubuntu:22.04:LTS", ["2.35-0ubuntu3", "2.35-0ubuntu3.1"]);
  });

  it("Debian: agrees with dpkg --compare-versions itself", () => {
    const versions = [
      "1.0",
      "1.0-0",
      "1.0-1",
      "1.0~rc1",
      "1.0~~",
      "1.0+b1",
      "1.0a",
      "1.0.1",
      "1:0.9",
      "0:1.0",
      "1.00",
      "1.0-1ubuntu1",
      "2.35-0ubuntu3.1",
      "1.1.1n-0+deb11u3",
      "1.1.1w-0+deb11u1",
      "10",
      "9.9",
    ];
    const deb = schemeOf("Debian")!;
    for (const a of versions)
      for (const b of versions) {
        const lt = (() => {
          try {
            execFileSync("dpkg", ["--compare-versions", a, "lt", b]);
            return true;
          } catch {
            return false;
          }
        })();
        expect([a, b, deb.compare(deb.parse(a), deb.parse(b)) < 0]).toEqual([a, b, lt]);
      }
  });

  it("Alpine: apk suffixes and revisions", () => {
    expectOrdered("Alpine:v3.20", ["1.2_alpha1", "1.2_beta", "1.2_rc2", "1.2", "1.2-r1", "1.2_p1", "1.2a", "1.2.1"]);
    expect(compareApkVersions("3.0.8-r0", "3.0.10-r0")).toBe(-1);
  });

  it("RPM: rpmvercmp as rpm's own tests state it", () => {
    // From rpm's tests/rpmvercmp.at.
    const cases: [string, string, number][] = [
      ["1.0", "1.0", 0],
      ["1.0", "2.0", -1],
      ["2.0.1", "2.0", 1],
      ["5.5p1", "5.5p2", -1],
      ["5.5p10", "5.5p1", 1],
      ["10xyz", "10.1xyz", -1],
      ["xyz10", "xyz10.1", -1],
      ["1.0aa", "1.0a", 1],
      ["10.0001", "10.1", 0],
      ["2a", "2.0", -1],
      ["1.0~rc1", "1.0", -1],
      ["1.0~rc1", "1.0~rc1~git123", 1],
      ["1.0^", "1.0", 1],
      ["1.0^git1", "1.01", -1],
      ["1.0^git1~pre", "1.0^git1", -1],
      ["1.0", "1.0^git1", -1],
    ];
    for (const [a, b, expected] of cases) expect([a, b, rpmvercmp(a, b)]).toEqual([a, b, expected]);
    expect(compareRpmVersions("1:1.0-1.el8", "2.0-1.el8")).toBe(1);
    expect(compareRpmVersions("7.61.1-22.el8", "7.61.1-22.el8_6.3")).toBe(-1);
    expectOrdered("Red Hat", ["7.61.1-22.el8", "7.61.1-22.el8_6.3", "1:7.0-1"]);
  });
});

describe("version ranges", () => {
  const holds = (ecosystem: string, range: string, version: string) => {
    const parsed = parseVersionRange(range);
    if (!parsed) throw new Error(`not a range: ${range}`);
    return inVersionRange(parsed, schemeOf(ecosystem)!, version);
  };

  it("reads comparators, intervals and alternatives", () => {
    expect(parseVersionRange(">=1.0, <2.0 || ==3.0")).toEqual([
      [
        { op: ">=", version: "1.0" },
        { op: "<", version: "2.0" },
      ],
      [{ op: "=", version: "3.0" }],
    ]);
    expect(parseVersionRange("(,1.0],[1.2,)")).toEqual([
      [{ op: "<=", version: "1.0" }],
      [{ op: ">=", version: "1.2" }],
    ]);
    expect(parseVersionRange("[1.5]")).toEqual([[{ op: "=", version: "1.5" }]]);
    for (const bad of ["", "(,)", "[1.0", "(1.5)", ">=", "~=1.4", "1.0 || "])
      expect([bad, parseVersionRange(bad)]).toEqual([bad, null]);
    expect([
      isVersionRange("2.14.1"),
      isVersionRange("[2.0,3.0)"),
      isVersionRange("^1.2"),
      isVersionRange("1||2"),
    ]).toEqual([false, true, true, true]);
  });

  it("judges a version by its ecosystem's order", () => {
    expect(holds("Maven", "[2.0,2.15.0)", "2.15.0-rc1")).toBe(true);
    expect(holds("Maven", "[2.0,2.15.0)", "2.15.0")).toBe(false);
    expect(holds("npm", "<1.0.0", "1.0.0-alpha")).toBe(true);
    expect(holds("PyPI", ">=1.0", "1.0.dev1")).toBe(false);
    expect(holds("Debian", ">=1:1.0", "2.0")).toBe(false);
    // A bound the scheme cannot read fails its alternative only.
    expect(holds("npm", ">=not.a.version || <2.0.0", "1.5.0")).toBe(true);
    expect(holds("npm", ">=1.0.0", "garbage")).toBe(false);
  });
});
