// The findings' rules without I/O: purls as the matcher names package versions, the VEX states and moves, the list's
// sort rule, and the VEX product match.
import { describe, expect, it } from "@jest/globals";
import { VEX_STATES } from "@sca/vocabulary";
import { findingSortOf } from "../src/domain/finding-list.ts";
import { lookupPackage, packageVersionOf } from "../src/domain/package-version.ts";
import { parseVex, productNames, purlIdentity, purlIn } from "../src/domain/vex-documents.ts";
import { mayMove, triageOf } from "../src/domain/vex-status.ts";

describe("packageVersionOf", () => {
  it("names versions as OSV does, per ecosystem", () => {
    expect(packageVersionOf("pkg:pypi/Django_Rest.Framework@3.14.0")).toEqual({
      ecosystem: "PyPI",
      name: "django-rest-framework",
      version: "3.14.0",
    });
    expect(packageVersionOf("pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar")).toEqual({
      ecosystem: "Maven",
      name: "org.apache.logging.log4j:log4j-core",
      version: "2.14.1",
    });
    expect(packageVersionOf("pkg:npm/%40babel/core@7.0.0")!.name).toBe("@babel/core");
    expect(packageVersionOf("pkg:golang/github.com/gin-gonic/gin@v1.9.0")!.name).toBe("github.com/gin-gonic/gin");
    expect(packageVersionOf("pkg:cargo/serde@1.0.0")!.ecosystem).toBe("crates.io");
    expect(packageVersionOf("pkg:deb/debian/openssl@3.0.11-1?distro=debian-12")!.ecosystem).toBe("Debian:12");
    expect(packageVersionOf("pkg:apk/alpine/musl@1.2.4-r2?distro=alpine-3.20.1")!.ecosystem).toBe("Alpine:v3.20");
  });

  it("names nothing for an unknown type, a purl without version, or no purl", () => {
    expect(packageVersionOf("pkg:generic/thing@1.0")).toBeNull();
    expect(packageVersionOf("pkg:npm/lodash")).toBeNull();
    expect(packageVersionOf("not a purl")).toBeNull();
    expect(packageVersionOf(null)).toBeNull();
  });

  it("reads the lookup's ecosystem words", () => {
    expect(lookupPackage("npm", "scope/")).toBeNull();
    expect(lookupPackage("pypi", "Flask_Login")).toEqual({
      ecosystem: "PyPI",
      name: "flask-login",
      purl: "pkg:pypi/flask-login",
    });
    expect(lookupPackage("npm", "@babel/core")!.purl).toBe("pkg:npm/%40babel/core");
  });
});

describe("VEX states", () => {
  it("lets every state reopen, and closes only from in_triage or exploitable", () => {
    for (const s of VEX_STATES)
      expect([mayMove(s, "in_triage"), mayMove(s, "exploitable"), mayMove(s, s)]).toEqual([true, true, true]);
    expect(mayMove("in_triage", "resolved")).toBe(true);
    expect(mayMove("exploitable", "not_affected")).toBe(true);
    expect(mayMove("not_affected", "resolved")).toBe(false);
    expect(mayMove("resolved", "false_positive")).toBe(false);
  });

  it("checks the triage: justification only with not_affected, which needs it or a detail", () => {
    const v: { path: string; message: string }[] = [];
    expect(triageOf({ status: "not_affected", responses: [] }, v)).toBeNull();
    expect(v.map((x) => x.path)).toEqual(["body.justification"]);
    expect(triageOf({ status: "Not_Affected", responses: ["update", "update"], detail: " why " }, [])).toEqual({
      status: "not_affected",
      justification: null,
      responses: ["update"],
      detail: "why",
    });
    const w: { path: string; message: string }[] = [];
    triageOf({ status: "resolved", justification: "code_not_present", responses: ["maybe"] }, w);
    expect(w.map((x) => x.path)).toEqual(["body.justification", "body.response"]);
  });
});

describe("the findings sort", () => {
  it("reads comma-separated fields, - descending, the default most severe first", () => {
    const v: { path: string; message: string }[] = [];
    expect(findingSortOf("", v)).toEqual([
      { field: "severity", descending: true },
      { field: "epss", descending: true },
    ]);
    expect(findingSortOf("component,-cvss,component", v)).toEqual([
      { field: "component", descending: false },
      { field: "cvss", descending: true },
    ]);
    expect(v).toEqual([]);
    findingSortOf("name", v);
    expect(v.map((x) => x.path)).toEqual(["query.sort"]);
  });
});

describe("VEX documents read back", () => {
  it("matches products by package, version unless absent, and no contradicting qualifier", () => {
    const component = purlIdentity("pkg:apk/distro/git@2.39.0-r1?arch=x86_64")!;
    expect(productNames(purlIdentity("pkg:apk/distro/git@2.39.0-r1?arch=x86_64")!, component)).toBe(true);
    expect(productNames(purlIdentity("pkg:apk/distro/git@2.39.0-r1")!, component)).toBe(true);
    expect(productNames(purlIdentity("pkg:apk/distro/git")!, component)).toBe(true);
    expect(productNames(purlIdentity("pkg:apk/distro/git@2.39.0-r1?arch=armv7")!, component)).toBe(false);
    expect(productNames(purlIdentity("pkg:apk/distro/git@2.40.0")!, component)).toBe(false);
  });

  it("reads purls out of CycloneDX BOM-links and maps OpenVEX statuses to CycloneDX states", () => {
    expect(purlIn("urn:cdx:3e67/1#pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.0?type=jar")).toBe(
      "pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.0?type=jar",
    );
    expect(purlIn("product-ABC")).toBeNull();
    expect(purlIn("urn:cdx:x/1#%E0%A4%A")).toBeNull();
    const parsed = parseVex(
      Buffer.from(
        JSON.stringify({
          "@context": "https://openvex.dev/ns/v0.2.0",
          statements: [
            { vulnerability: { name: "CVE-1" }, products: [{ "@id": "pkg:npm/a@1" }], status: "affected" },
            {
              vulnerability: "CVE-2",
              products: ["pkg:npm/b@1"],
              status: "not_affected",
              justification: "vulnerable_code_not_in_execute_path",
            },
            { vulnerability: { name: "CVE-3" }, products: [], status: "unknown" },
          ],
        }),
      ),
    );
    expect(parsed.format).toBe("openvex");
    expect(parsed.statements.map((s) => [s.vulnerabilityIds, s.triage?.status, s.triage?.justification])).toEqual([
      [["CVE-1"], "exploitable", null],
      [["CVE-2"], "not_affected", "code_not_reachable"],
      [["CVE-3"], undefined, undefined],
    ]);
    expect(() => parseVex(Buffer.from("[]"))).toThrow();
  });
});
