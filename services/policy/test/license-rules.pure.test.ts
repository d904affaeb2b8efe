// The license catalog, the expression limits and licenseExpressionVerdict: the real expressions of the shared SBOMs
// against a table, the resolution order (exception, override, catalog, unknown), the operator strategies and the
// use a project declares.
import { createRequire } from "node:module";
import { describe, expect, it } from "@jest/globals";
import {
  catalogEntries,
  catalogJudgement,
  DISTRIBUTION_MODELS,
  EVERY_WAY,
  type LicenseCategory,
} from "../src/domain/license-catalog.ts";
import { categoriseComponents } from "../src/domain/license-categorisation.ts";
import { NAMED_IDS } from "../src/domain/license-families.ts";
import { parseLicenseExpression } from "../src/domain/license-expression.ts";
import {
  CATALOG_ONLY,
  effectivePolicy,
  mergedStrategy,
  planLicensePolicy,
  type LicenseRules,
} from "../src/domain/license-policy.ts";
import { licenseExpressionVerdict, type VerdictContext } from "../src/domain/license-verdict.ts";
import { sbomLicenseExpressions } from "./support/sbom-expressions.ts";

const requireJson = createRequire(import.meta.url);
const NOW = new Date("2026-11-24T12:00:00Z");
const everyWay: VerdictContext = { ...EVERY_WAY, componentPurl: null, now: NOW };
const verdict = (e: string | null, rules: LicenseRules = CATALOG_ONLY, ctx: Partial<VerdictContext> = {}) =>
  licenseExpressionVerdict(e, rules, { ...everyWay, ...ctx });
const rules = (r: Partial<LicenseRules>): LicenseRules => ({ ...CATALOG_ONLY, ...r });

// Every expression of the shared SBOMs: its category with the catalog alone, for a project that set neither
// distribution_model nor ai_usage_context (judged as if shipped every way), and for a SaaS project.
const SBOM_TABLE: Record<string, [everyWay: LicenseCategory, saas: LicenseCategory]> = {
  "(AFL-2.1 OR BSD-3-Clause)": ["allowed", "allowed"],
  "(Apache-2.0 AND LicenseRef-1)": ["conditional", "conditional"],
  "(BSD-2-Clause OR MIT OR Apache-2.0)": ["allowed", "allowed"],
  "(CDDL-1.0 OR GPL-2.0-with-classpath-exception)": ["conditional", "allowed"],
  "(LGPL-2.0-or-later OR WTFPL)": ["allowed", "allowed"],
  "(LicenseRef-1 AND Apache-2.0)": ["conditional", "conditional"],
  "(MIT AND BSD-3-Clause)": ["allowed", "allowed"],
  "(MIT AND Zlib)": ["allowed", "allowed"],
  "(MIT OR Apache-2.0)": ["allowed", "allowed"],
  "(MIT OR CC0-1.0)": ["allowed", "allowed"],
  "(MIT OR WTFPL)": ["allowed", "allowed"],
  "(WTFPL OR MIT)": ["allowed", "allowed"],
  "0BSD": ["allowed", "allowed"],
  "Apache-2.0": ["allowed", "allowed"],
  "Apache-2.0 WITH LLVM-exception": ["allowed", "allowed"],
  "BSD-2-Clause": ["allowed", "allowed"],
  "BSD-3-Clause": ["allowed", "allowed"],
  "BSD-Source-Code": ["allowed", "allowed"],
  "BlueOak-1.0.0": ["allowed", "allowed"],
  "CC-BY-3.0": ["allowed", "allowed"],
  "CC-BY-4.0": ["allowed", "allowed"],
  "CC-BY-SA-4.0": ["forbidden", "allowed"],
  "CC0-1.0": ["allowed", "allowed"],
  "CDDL-1.1": ["conditional", "allowed"],
  "CPL-1.0": ["conditional", "allowed"],
  "EPL-1.0": ["conditional", "allowed"],
  "EPL-2.0": ["conditional", "allowed"],
  "GPL-2.0": ["forbidden", "allowed"],
  "GPL-2.0-only": ["forbidden", "allowed"],
  "GPL-2.0-or-later": ["forbidden", "allowed"],
  "GPL-2.0-with-classpath-exception": ["forbidden", "allowed"],
  "GPL-3.0-only": ["forbidden", "allowed"],
  "GPL-3.0-or-later": ["forbidden", "allowed"],
  ISC: ["allowed", "allowed"],
  JSON: ["conditional", "conditional"],
  // "BSD-3" is no SPDX id: the expression is not SPDX, so the whole takes the unknown category.
  "LGPL-2.0-or-later AND GPL-2.0-or-later AND BSD-3 AND Apache-2.0": ["conditional", "conditional"],
  "LGPL-2.1": ["conditional", "allowed"],
  "LGPL-2.1+": ["conditional", "allowed"],
  "LGPL-2.1-only": ["conditional", "allowed"],
  "LGPL-2.1-or-later": ["conditional", "allowed"],
  "LGPL-3.0": ["conditional", "allowed"],
  "LGPL-3.0-or-later": ["conditional", "allowed"],
  "LGPL-3.0-or-later AND BSD-3": ["conditional", "conditional"],
  "LGPL-3.0-or-later OR GPL-2.0-or-later": ["conditional", "allowed"],
  "LicenseRef-1": ["conditional", "conditional"],
  "LicenseRef-GPL-2.0-only-with-libgit2-exception": ["conditional", "conditional"],
  MIT: ["allowed", "allowed"],
  "MIT AND BSD-2-Clause-FreeBSD AND ISC": ["allowed", "allowed"],
  "MPL-1.1": ["conditional", "allowed"],
  "MPL-2.0": ["conditional", "allowed"],
  OpenSSL: ["allowed", "allowed"],
  "Python-2.0": ["allowed", "allowed"],
  "SAX-PD": ["allowed", "allowed"],
  Unlicense: ["allowed", "allowed"],
  WTFPL: ["allowed", "allowed"],
  "WTFPL OR ISC": ["allowed", "allowed"],
  Zlib: ["allowed", "allowed"],
  curl: ["allowed", "allowed"],
};

describe("the real expressions of the shared SBOMs", () => {
  const found = sbomLicenseExpressions();

  it("are exactly the table's", () => {
    expect(found.length).toBeGreaterThan(40);
    expect(found).toEqual(Object.keys(SBOM_TABLE).sort());
  });

  it.each(Object.entries(SBOM_TABLE))("%s", (expression, [whenEveryWay, whenSaas]) => {
    expect(verdict(expression).category).toBe(whenEveryWay);
    expect(verdict(expression, CATALOG_ONLY, { distributionModel: "saas" }).category).toBe(whenSaas);
  });

  it("parses every one that is SPDX, with WITH, + and LicenseRef-", () => {
    const unparsed = found.filter((e) => !parseLicenseExpression(e).ok);
    expect(unparsed).toEqual([
      "LGPL-2.0-or-later AND GPL-2.0-or-later AND BSD-3 AND Apache-2.0",
      "LGPL-3.0-or-later AND BSD-3",
    ]);
  });
});

describe("the catalog", () => {
  it("holds every SPDX license and exception id of the data packages, deprecated ones too", () => {
    const ids = new Set(catalogEntries().map((e) => e.id));
    for (const pkg of [
      "spdx-license-ids",
      "spdx-license-ids/deprecated.json",
      "spdx-exceptions",
      "spdx-exceptions/deprecated.json",
    ])
      for (const id of requireJson(pkg) as string[]) expect(ids).toContain(id);
  });

  it("names only real SPDX ids in its family lists", () => {
    const ids = new Set(catalogEntries().map((e) => e.id));
    expect(NAMED_IDS.filter((id) => !ids.has(id))).toEqual([]);
  });

  it("judges every entry for every use", () => {
    for (const { id } of catalogEntries()) {
      expect(catalogJudgement(id, EVERY_WAY)).not.toBeNull();
      for (const distributionModel of DISTRIBUTION_MODELS)
        expect(catalogJudgement(id, { distributionModel, aiUsageContext: null })).not.toBeNull();
    }
  });

  it("judges copyleft by how the project ships", () => {
    const gpl = (distributionModel: (typeof DISTRIBUTION_MODELS)[number] | null) =>
      catalogJudgement("GPL-3.0-only", { distributionModel, aiUsageContext: null })!.category;
    expect([gpl("internal"), gpl("saas"), gpl("binary"), gpl("source"), gpl("embedded"), gpl(null)]).toEqual([
      "allowed",
      "allowed",
      "forbidden",
      "conditional",
      "forbidden",
      "forbidden",
    ]);
    const agpl = (distributionModel: (typeof DISTRIBUTION_MODELS)[number]) =>
      catalogJudgement("AGPL-3.0-or-later", { distributionModel, aiUsageContext: null })!.category;
    expect(agpl("saas")).toBe("forbidden");
    expect(agpl("internal")).toBe("conditional");
    expect(catalogJudgement("LGPL-2.1-only", { distributionModel: "binary", aiUsageContext: null })).toEqual({
      category: "conditional",
      obligations: ["include-license-text", "retain-notices", "disclose-modified-source", "allow-relinking"],
    });
    expect(catalogJudgement("MIT", { distributionModel: "saas", aiUsageContext: null })).toEqual({
      category: "allowed",
      obligations: [],
    });
    expect(catalogJudgement("MIT", EVERY_WAY)!.obligations).toEqual(
      expect.arrayContaining(["include-license-text", "retain-notices"]),
    );
  });

  it("forbids non-commercial licenses outside internal use, and source-available ones as a hosted service", () => {
    expect(catalogJudgement("CC-BY-NC-4.0", { distributionModel: "internal", aiUsageContext: null })!.category).toBe(
      "conditional",
    );
    expect(
      catalogJudgement("PolyForm-Noncommercial-1.0.0", { distributionModel: "binary", aiUsageContext: null })!.category,
    ).toBe("forbidden");
    expect(catalogJudgement("Elastic-2.0", { distributionModel: "saas", aiUsageContext: null })!.category).toBe(
      "forbidden",
    );
    expect(catalogJudgement("BUSL-1.1", { distributionModel: "internal", aiUsageContext: null })!.category).toBe(
      "conditional",
    );
  });

  it("judges data and model licenses by the AI usage context, full terms when unset", () => {
    const sharing = (aiUsageContext: "internal" | "product" | "redistribute" | "outputs-only" | null) =>
      catalogJudgement("CDLA-Sharing-1.0", { distributionModel: "binary", aiUsageContext })!;
    expect(sharing("outputs-only").category).toBe("allowed");
    expect(sharing("redistribute")).toEqual({
      category: "conditional",
      obligations: ["include-license-text", "retain-notices", "share-data-alike", "pass-terms-downstream"],
    });
    expect(sharing(null).category).toBe("conditional");
    expect(catalogJudgement("C-UDA-1.0", { distributionModel: null, aiUsageContext: "internal" })!.category).toBe(
      "allowed",
    );
    expect(catalogJudgement("OpenMDW-1.0", EVERY_WAY)!.category).toBe("allowed");
  });

  it("has no entry for LicenseRefs or unknown ids, and judges `+` as the version named", () => {
    expect(catalogJudgement("LicenseRef-acme", EVERY_WAY)).toBeNull();
    expect(catalogJudgement("Not-A-License", EVERY_WAY)).toBeNull();
    expect(catalogJudgement("GPL-2.0+", EVERY_WAY)).toEqual(catalogJudgement("GPL-2.0", EVERY_WAY));
  });
});

describe("expression limits", () => {
  it("evaluates 4096 characters, 64 levels and 1024 tokens, and gives the unknown category beyond them", () => {
    const strict = rules({ unknownLicenseCategory: "forbidden" });
    const nested = (depth: number) => "(".repeat(depth) + "MIT" + ")".repeat(depth);
    expect(verdict(nested(64), strict).category).toBe("allowed");
    expect(verdict(nested(65), strict)).toMatchObject({ category: "forbidden", unevaluable: "too_deep" });
    // "(MIT)" is three tokens: 256 of them joined by 255 ANDs are 1023 tokens, 257 are 1027.
    const tokens = (n: number) => Array.from({ length: n }, () => "(MIT)").join("AND");
    expect(verdict(tokens(256), strict).category).toBe("allowed");
    expect(tokens(257).length).toBeLessThanOrEqual(4096);
    expect(verdict(tokens(257), strict)).toMatchObject({ category: "forbidden", unevaluable: "too_many_tokens" });
    const longRef = `LicenseRef-${"a".repeat(4096 - "LicenseRef-".length)}`;
    expect(verdict(longRef, strict)).toMatchObject({ category: "forbidden", operands: [{ source: "unknown" }] });
    expect(verdict(`${longRef}b`, strict)).toMatchObject({ category: "forbidden", unevaluable: "too_long" });
  });

  it("never throws: text that is no SPDX expression, none at all, or a deep nesting the parser would recurse into", () => {
    const lenient = rules({ unknownLicenseCategory: "allowed" });
    for (const text of [
      "MIT AND",
      "(MIT",
      "Apache 2",
      "GPL-2.0 + ",
      "LicenseRef-x WITH Classpath-exception-2.0",
      "(".repeat(5000),
    ])
      expect(verdict(text, lenient)).toMatchObject({ category: "allowed", unevaluable: expect.any(String) });
    expect(verdict(null, lenient)).toMatchObject({ category: "allowed", unevaluable: "no_license" });
    expect(verdict("NOASSERTION", lenient).unevaluable).toBe("no_license");
  });

  it("parses WITH, +, DocumentRef- and LicenseRef- operands", () => {
    expect(
      parseLicenseExpression(
        "GPL-2.0-or-later WITH Classpath-exception-2.0 OR DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2 AND LGPL-2.1+",
      ),
    ).toEqual({
      ok: true,
      tree: {
        operator: "OR",
        left: { license: "GPL-2.0-or-later", plus: false, exception: "Classpath-exception-2.0" },
        right: {
          operator: "AND",
          left: { license: "DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2", plus: false, exception: null },
          right: { license: "LGPL-2.1", plus: true, exception: null },
        },
      },
    });
  });
});

describe("resolution order", () => {
  const purl = "pkg:npm/left-pad@1.3.0";

  it("an exception forces allowed, before an override and the catalog", () => {
    const r = rules({
      categoryOverrides: { "GPL-3.0-only": "forbidden" },
      licenseExceptions: [{ spdxId: "GPL-3.0-only", reason: "legal ok", expiresAt: null, componentPurl: null }],
    });
    expect(verdict("GPL-3.0-only", r)).toMatchObject({ category: "allowed", operands: [{ source: "exception" }] });
  });

  it("an expired exception no longer applies; one limited to a package applies to that package only", () => {
    const expired = rules({
      licenseExceptions: [
        { spdxId: "GPL-3.0-only", reason: "x", expiresAt: new Date("2026-11-24T11:59:59Z"), componentPurl: null },
      ],
    });
    expect(verdict("GPL-3.0-only", expired)).toMatchObject({
      category: "forbidden",
      operands: [{ source: "catalog" }],
    });
    const stillValid = rules({
      licenseExceptions: [
        { spdxId: "GPL-3.0-only", reason: "x", expiresAt: new Date("2026-11-24T12:00:01Z"), componentPurl: null },
      ],
    });
    expect(verdict("GPL-3.0-only", stillValid).category).toBe("allowed");
    const perPackage = (componentPurl: string) =>
      rules({ licenseExceptions: [{ spdxId: "GPL-3.0-only", reason: "x", expiresAt: null, componentPurl }] });
    expect(verdict("GPL-3.0-only", perPackage(purl), { componentPurl: purl }).category).toBe("allowed");
    expect(verdict("GPL-3.0-only", perPackage("pkg:npm/left-pad"), { componentPurl: purl }).category).toBe("allowed");
    expect(verdict("GPL-3.0-only", perPackage("pkg:npm/left-pad@1.2.0"), { componentPurl: purl }).category).toBe(
      "forbidden",
    );
    expect(
      verdict("GPL-3.0-only", perPackage("pkg:npm/left-pad"), { componentPurl: "pkg:npm/left-pad-x@1" }).category,
    ).toBe("forbidden");
    expect(verdict("GPL-3.0-only", perPackage(purl), { componentPurl: null }).category).toBe("forbidden");
  });

  it("an override goes before the catalog; the unknown category only for what neither names", () => {
    const r = rules({
      categoryOverrides: { MIT: "forbidden", "LicenseRef-acme": "allowed" },
      unknownLicenseCategory: "forbidden",
    });
    expect(verdict("MIT", r)).toMatchObject({ category: "forbidden", operands: [{ source: "override" }] });
    expect(verdict("LicenseRef-acme", r)).toMatchObject({ category: "allowed", operands: [{ source: "override" }] });
    expect(verdict("LicenseRef-other", r)).toMatchObject({ category: "forbidden", operands: [{ source: "unknown" }] });
    expect(verdict("Apache-2.0", r)).toMatchObject({ category: "allowed", operands: [{ source: "catalog" }] });
  });

  it("an override of the version named also covers its `+`", () => {
    const r = rules({ categoryOverrides: { "LGPL-2.1": "allowed" } });
    expect(verdict("LGPL-2.1+", r)).toMatchObject({
      category: "allowed",
      operands: [{ id: "LGPL-2.1+", source: "override" }],
    });
  });
});

describe("compound_operator_strategy", () => {
  it("defaults: AND most, OR least, WITH most restrictive", () => {
    expect(verdict("MIT AND GPL-3.0-only").category).toBe("forbidden");
    expect(verdict("MIT OR GPL-3.0-only").category).toBe("allowed");
    expect(verdict("GPL-2.0-only WITH Classpath-exception-2.0").category).toBe("forbidden");
    expect(verdict("MIT WITH DigiRule-FOSS-exception").category).toBe("conditional");
  });

  it("each operator follows its own strategy", () => {
    const flipped = rules({
      compoundOperatorStrategy: mergedStrategy({
        AND: "least_restrictive",
        OR: "most_restrictive",
        WITH: "least_restrictive",
      }),
    });
    expect(verdict("MIT AND GPL-3.0-only", flipped).category).toBe("allowed");
    expect(verdict("MIT OR GPL-3.0-only", flipped).category).toBe("forbidden");
    expect(verdict("GPL-2.0-only WITH Classpath-exception-2.0", flipped).category).toBe("allowed");
  });

  it("a partial object merges onto the defaults", () => {
    expect(mergedStrategy({ WITH: "least_restrictive" })).toEqual({
      AND: "most_restrictive",
      OR: "least_restrictive",
      WITH: "least_restrictive",
    });
    expect(mergedStrategy(null)).toEqual({
      AND: "most_restrictive",
      OR: "least_restrictive",
      WITH: "most_restrictive",
    });
  });

  it("OR keeps the obligations of the side it chose, AND those of both", () => {
    const ctx = { distributionModel: "binary" as const };
    expect(verdict("MIT OR LGPL-2.1-only", CATALOG_ONLY, ctx).obligations).not.toContain("allow-relinking");
    expect(verdict("MIT AND LGPL-2.1-only", CATALOG_ONLY, ctx).obligations).toContain("allow-relinking");
  });
});

describe("policies", () => {
  it("the team's enabled policy, else the enabled organization default, else none", () => {
    const team = { id: "t", enabled: true };
    const org = { id: "o", enabled: true };
    expect(effectivePolicy(team, org)).toBe(team);
    expect(effectivePolicy({ ...team, enabled: false }, org)).toBe(org);
    expect(effectivePolicy({ ...team, enabled: false }, { ...org, enabled: false })).toBeNull();
    expect(effectivePolicy(null, null)).toBeNull();
  });

  const input = {
    name: null,
    categoryOverrides: {},
    licenseExceptions: [],
    unknownLicenseCategory: null,
    compoundOperatorStrategy: null,
    enabled: null,
  };

  it("an upsert with nothing but defaults", () => {
    expect(planLicensePolicy(input)).toEqual({
      ok: true,
      fields: { ...CATALOG_ONLY, name: null, enabled: true },
    });
  });

  it("refuses ids that are neither SPDX nor LicenseRef, bad categories, missing reasons, bad dates and keys", () => {
    const plan = planLicensePolicy({
      ...input,
      categoryOverrides: {
        "Not-A-License": "allowed",
        MIT: "blocked",
        "LicenseRef-x": "allowed",
        "GPL-2.0+": "forbidden",
      },
      licenseExceptions: [
        { spdxId: "MIT", reason: " ", expiresAt: "tomorrow", componentPurl: "npm/x" },
        { spdxId: "Classpath-exception-2.0", reason: "ok", expiresAt: "2027-01-01T00:00:00Z", componentPurl: null },
      ],
      unknownLicenseCategory: "maybe",
      compoundOperatorStrategy: { AND: "random", XOR: "most_restrictive" } as never,
    });
    expect(plan.ok).toBe(false);
    expect(!plan.ok && plan.violations.map((v) => v.path).sort()).toEqual([
      "category_overrides.MIT",
      "category_overrides.Not-A-License",
      "compound_operator_strategy.AND",
      "compound_operator_strategy.XOR",
      "license_exceptions.0.component_purl",
      "license_exceptions.0.expires_at",
      "license_exceptions.0.reason",
      "unknown_license_category",
    ]);
  });
});

describe("categoriseComponents", () => {
  it("answers what licenseExpressionVerdict answers for each component, per-package exceptions included", () => {
    const r = rules({
      licenseExceptions: [
        { spdxId: "GPL-3.0-only", reason: "x", expiresAt: null, componentPurl: "pkg:npm/vetted" },
        {
          spdxId: "AGPL-3.0-only",
          reason: "x",
          expiresAt: new Date("2026-01-01T00:00:00Z"),
          componentPurl: "pkg:npm/old",
        },
      ],
    });
    const components = [
      { license: "GPL-3.0-only", purl: "pkg:npm/vetted@1.0.0" },
      { license: "GPL-3.0-only", purl: "pkg:npm/other@1.0.0" },
      { license: "GPL-3.0-only", purl: null },
      { license: "AGPL-3.0-only", purl: "pkg:npm/old@1.0.0" },
      { license: null, purl: "pkg:npm/x@1" },
      { license: "MIT OR GPL-3.0-only", purl: "pkg:npm/vetted@2.0.0" },
    ];
    const expected = components.map((c) => verdict(c.license, r, { componentPurl: c.purl }).category);
    expect(categoriseComponents(components, r, { ...EVERY_WAY, now: NOW })).toEqual(expected);
    expect(expected).toEqual(["allowed", "forbidden", "forbidden", "forbidden", "conditional", "allowed"]);
  });
});

describe("planLicensePolicy on many bad entries", () => {
  it("reports at most 50 violations", () => {
    const plan = planLicensePolicy({
      name: null,
      categoryOverrides: {},
      licenseExceptions: Array.from({ length: 1000 }, () => ({
        spdxId: "0",
        reason: "0",
        expiresAt: null,
        componentPurl: null,
      })),
      unknownLicenseCategory: null,
      compoundOperatorStrategy: null,
      enabled: null,
    });
    expect(!plan.ok && plan.violations).toHaveLength(50);
  });
});
