// Field normalisation shared by every format: license expressions and names, hash algorithms, SPDX parties, purls.
import { describe, expect, it } from "@jest/globals";
import { canonicalPurl, normaliseHash, spdxPartyName } from "../src/domain/sbom/component-fields.ts";
import { allOf, createLicenseNormaliser, licenseRefFor } from "../src/domain/sbom/license-expression.ts";

describe("license expressions", () => {
  const licenses = createLicenseNormaliser();

  it("keeps valid expressions, in one spelling", () => {
    expect(licenses.expression("MIT")).toEqual({ expression: "MIT", ids: ["MIT"], unknownNames: [] });
    expect(licenses.expression("(MIT OR Apache-2.0) AND BSD-3-Clause").expression).toBe(
      "(MIT OR Apache-2.0) AND BSD-3-Clause",
    );
    expect(licenses.expression("MIT OR Apache-2.0 AND BSD-3-Clause").expression).toBe(
      "MIT OR Apache-2.0 AND BSD-3-Clause",
    );
    expect(licenses.expression("GPL-2.0-or-later WITH Classpath-exception-2.0").ids).toEqual(["GPL-2.0-or-later"]);
    expect(licenses.expression("GPL-2.0+").expression).toBe("GPL-2.0+");
    expect(licenses.expression("DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2").expression).toBe(
      "DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2",
    );
  });

  it("repairs case and near-misses, and keeps unknown ids as LicenseRefs", () => {
    expect(licenses.expression("mit or apache-2.0").expression).toBe("MIT OR Apache-2.0");
    expect(licenses.expression("gpl-2.0-only with classpath-exception-2.0").expression).toBe(
      "GPL-2.0-only WITH Classpath-exception-2.0",
    );
    expect(licenses.expression("MIT AND Acme-Proprietary-1.0")).toEqual({
      expression: "MIT AND LicenseRef-Acme-Proprietary-1.0",
      ids: ["MIT", "LicenseRef-Acme-Proprietary-1.0"],
      unknownNames: ["Acme-Proprietary-1.0"],
    });
    expect(licenses.expression("NOASSERTION").expression).toBeNull();
    expect(licenses.expression(" NONE ").expression).toBeNull();
    expect(licenses.expression("").expression).toBeNull();
    expect(licenses.expression("x ".repeat(3000)).expression).toBe("LicenseRef-unparsed-expression-5999-chars");
  });

  it("turns license names into ids, compound prose into a LicenseRef", () => {
    expect(licenses.name("Apache License, Version 2.0").expression).toBe("Apache-2.0");
    expect(licenses.name("The MIT License (MIT)").expression).toBe("MIT");
    expect(licenses.name("CDDL + GPLv2 with classpath exception")).toEqual({
      expression: "LicenseRef-CDDL-GPLv2-with-classpath-exception",
      ids: ["LicenseRef-CDDL-GPLv2-with-classpath-exception"],
      unknownNames: ["CDDL + GPLv2 with classpath exception"],
    });
    expect(licenseRefFor("LicenseRef-a b/c")).toBe("LicenseRef-a-b-c");
  });

  it("joins several declared licenses with AND, parenthesising compound ones", () => {
    expect(allOf([])).toBeNull();
    expect(allOf(["MIT", "MIT"])).toBe("MIT");
    expect(allOf(["MIT", "Apache-2.0 OR BSD-3-Clause"])).toBe("MIT AND (Apache-2.0 OR BSD-3-Clause)");
  });
});

describe("hashes, parties, purls", () => {
  it("spells hash algorithms as CycloneDX does and lower-cases values", () => {
    expect(normaliseHash("SHA1", "ABC")).toEqual({ algorithm: "SHA-1", value: "abc" });
    expect(normaliseHash("sha256", "ab")).toEqual({ algorithm: "SHA-256", value: "ab" });
    expect(normaliseHash("SHA3_256", "ab")?.algorithm).toBe("SHA3-256");
    expect(normaliseHash("blake2b256", "ab")?.algorithm).toBe("BLAKE2b-256");
    expect(normaliseHash("BLAKE2b-512", "ab")?.algorithm).toBe("BLAKE2b-512");
    expect(normaliseHash("whirlpool", "ab")?.algorithm).toBe("WHIRLPOOL");
    expect(normaliseHash("SHA1", "")).toBeNull();
  });

  it("reads SPDX parties", () => {
    expect(spdxPartyName("Organization: Acme Corp (ops@acme.test)")).toBe("Acme Corp");
    expect(spdxPartyName("Person: Jo Bloggs")).toBe("Jo Bloggs");
    expect(spdxPartyName("NOASSERTION")).toBeNull();
  });

  it("canonicalises purls and refuses what is not one", () => {
    expect(canonicalPurl("pkg:NPM/%40Angular/core@1.0.0?b=2&a=1")).toBe("pkg:npm/%40angular/core@1.0.0?a=1&b=2");
    expect(canonicalPurl(" pkg:maven/org.example/lib@1.0?type=jar ")).toBe("pkg:maven/org.example/lib@1.0?type=jar");
    expect(canonicalPurl("not a purl")).toBeNull();
    expect(canonicalPurl("pkg:")).toBeNull();
  });
});
