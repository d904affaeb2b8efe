import { describe, expect, it } from "@jest/globals";
import { normalisedName, packageOfPurl } from "../src/index.ts";

describe("components named by purl", () => {
  const pkg = (purl: string) => packageOfPurl(purl);
  it("maps purl types to OSV ecosystems with each ecosystem's name normalisation", () => {
    expect(pkg("pkg:npm/%40babel/core@7.0.0")).toEqual({
      kind: "package",
      package: { ecosystem: "npm", name: "@babel/core", version: "7.0.0" },
    });
    expect(pkg("pkg:pypi/Django_REST.framework@1.0")).toEqual({
      kind: "package",
      package: { ecosystem: "PyPI", name: "django-rest-framework", version: "1.0" },
    });
    expect(pkg("pkg:maven/org.apache.commons/commons-text@1.9")).toEqual({
      kind: "package",
      package: { ecosystem: "Maven", name: "org.apache.commons:commons-text", version: "1.9" },
    });
    expect(pkg("pkg:golang/github.com/gin-gonic/gin@v1.6.0")).toEqual({
      kind: "package",
      package: { ecosystem: "Go", name: "github.com/gin-gonic/gin", version: "v1.6.0" },
    });
    // The Go release of a binary, as osv-scalibr names it: the standard library, as OSV-Scanner reads it.
    expect(pkg("pkg:golang/go@1.20.1")).toEqual({
      kind: "package",
      package: { ecosystem: "Go", name: "stdlib", version: "1.20.1" },
    });
    expect(pkg("pkg:golang/stdlib@v1.22.6")).toMatchObject({ package: { ecosystem: "Go", name: "stdlib" } });
    expect(pkg("pkg:golang/toolchain@1.22.6")).toMatchObject({ package: { ecosystem: "Go", name: "toolchain" } });
    expect(pkg("pkg:cargo/tokio@1.0.0")).toMatchObject({ package: { ecosystem: "crates.io", name: "tokio" } });
    expect(pkg("pkg:nuget/Newtonsoft.Json@12.0.1")).toMatchObject({
      package: { ecosystem: "NuGet", name: "newtonsoft.json" },
    });
    expect(pkg("pkg:gem/rails@6.0.0")).toMatchObject({ package: { ecosystem: "RubyGems", name: "rails" } });
    expect(pkg("pkg:deb/debian/openssl@1.1.1n-0%2Bdeb11u3?distro=debian-11")).toMatchObject({
      package: { ecosystem: "Debian:11", version: "1.1.1n-0+deb11u3" },
    });
    expect(pkg("pkg:apk/alpine/musl@1.2.3-r0?distro=alpine-3.16.2")).toMatchObject({
      package: { ecosystem: "Alpine:v3.16" },
    });
    expect(pkg("pkg:rpm/redhat/curl@7.61.1-22.el8?epoch=1&arch=x86_64")).toMatchObject({
      package: { ecosystem: "Red Hat", version: "1:7.61.1-22.el8" },
    });
  });

  it("names a component as projects and the matcher both need it (Debian by major, Ubuntu by year.month)", () => {
    expect(pkg("pkg:deb/debian/openssl@3.0.11-1?distro=debian-12.4")).toMatchObject({
      package: { ecosystem: "Debian:12", name: "openssl", version: "3.0.11-1" },
    });
    expect(pkg("pkg:deb/ubuntu/libc6@2.35-0ubuntu3?distro=ubuntu-22.04")).toMatchObject({
      package: { ecosystem: "Ubuntu:22.04" },
    });
    expect(pkg("pkg:deb/debian/openssl@3.0.11-1")).toMatchObject({ package: { ecosystem: "Debian" } });
  });

  it("compares names as the ecosystem does", () => {
    expect(normalisedName("PyPI", "Py_Proto.2")).toBe("py-proto-2");
    expect(normalisedName("NuGet", "AeroWizard.Net")).toBe("aerowizard.net");
    expect(normalisedName("Packagist", "Laravel/Framework")).toBe("laravel/framework");
    expect(normalisedName("Debian:12", "Foo")).toBe("Foo");
    expect(normalisedName("npm", "Foo")).toBe("Foo");
  });

  it("reports an unknown ecosystem instead of guessing, and a purl it cannot use", () => {
    expect(pkg("pkg:composer/laravel/framework@7.12.0")).toEqual({ kind: "unknown-ecosystem", purlType: "composer" });
    expect(pkg("pkg:deb/raspbian/libc6@2.31")).toEqual({ kind: "unknown-ecosystem", purlType: "deb/raspbian" });
    expect(pkg("pkg:npm/lodash")).toEqual({ kind: "unusable", reason: "the purl has no version" });
    expect(pkg("not a purl")).toMatchObject({ kind: "unusable" });
  });
});
