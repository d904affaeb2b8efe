// Obligations derived from real license expressions (those of the shared SBOMs) for a project's use, attributed to
// the license whose terms carry them; the notice document's pieces with the SPDX texts of spdx-license-list; the
// fulfilment's fields and who may record one.
import { describe, expect, it } from "@jest/globals";
import type { Caller } from "@sca/rpc";
import { EVERY_WAY, type UseContext } from "../src/domain/license-catalog.ts";
import { CATALOG_ONLY, type LicenseRules } from "../src/domain/license-policy.ts";
import { licenseText } from "../src/domain/license-texts.ts";
import { componentEntry, licenseIdsOf, licenseSection } from "../src/domain/notice-document.ts";
import { mayFulfil, planFulfilment } from "../src/domain/obligation-fulfilment.ts";
import {
  deriveObligations,
  obligationIdOf,
  parseObligationSort,
  sortObligations,
  type ExpressionCount,
} from "../src/domain/project-obligations.ts";
import { sbomLicenseExpressions } from "./support/sbom-expressions.ts";

const PROJECT = "7c1e2b9a-0d4f-4f6e-8a3b-5e2d1c0b9a87";
const NOW = new Date("2026-11-24T12:00:00Z");
const binary: UseContext = { distributionModel: "binary", aiUsageContext: null };
const saas: UseContext = { distributionModel: "saas", aiUsageContext: null };
const derive = (e: ExpressionCount[], use: UseContext = binary, rules: LicenseRules = CATALOG_ONLY) =>
  deriveObligations(PROJECT, e, rules, use, NOW);
const pairs = (e: ExpressionCount[], use: UseContext = binary) =>
  derive(e, use).map((o) => [o.license, o.obligation, o.componentCount]);

describe("deriveObligations", () => {
  it("attributes each obligation to the license carrying it, counting components across expressions", () => {
    const found = derive([
      { expression: "MIT", componentCount: 5 },
      { expression: "(MIT AND Zlib)", componentCount: 2 },
    ]);
    expect(found.map((o) => [o.license, o.obligation, o.componentCount])).toEqual([
      ["MIT", "include-license-text", 7],
      ["MIT", "retain-notices", 7],
      ["Zlib", "include-license-text", 2],
      ["Zlib", "retain-notices", 2],
    ]);
    expect(found[0]).toMatchObject({
      id: obligationIdOf(PROJECT, "MIT", "include-license-text"),
      title: "Ship the license text with the component",
      licenseCategory: "allowed",
      expressions: [
        { expression: "MIT", componentCount: 5 },
        { expression: "(MIT AND Zlib)", componentCount: 2 },
      ],
    });
  });

  it("follows the chosen side of OR only, and both sides of AND and WITH", () => {
    expect(pairs([{ expression: "(MIT OR Apache-2.0)", componentCount: 3 }])).toEqual([
      ["MIT", "include-license-text", 3],
      ["MIT", "retain-notices", 3],
    ]);
    expect(pairs([{ expression: "Apache-2.0 WITH LLVM-exception", componentCount: 1 }])).toEqual([
      ["Apache-2.0", "include-license-text", 1],
      ["Apache-2.0", "retain-notices", 1],
      ["LLVM-exception", "keep-exception-notice", 1],
    ]);
  });

  it("judges for the project's distribution_model, every way when unset", () => {
    const lgpl = [{ expression: "LGPL-2.1-only", componentCount: 4 }];
    expect(pairs(lgpl)).toEqual([
      ["LGPL-2.1-only", "allow-relinking", 4],
      ["LGPL-2.1-only", "disclose-modified-source", 4],
      ["LGPL-2.1-only", "include-license-text", 4],
      ["LGPL-2.1-only", "retain-notices", 4],
    ]);
    expect(derive(lgpl)[0]!.licenseCategory).toBe("conditional");
    expect(pairs(lgpl, saas)).toEqual([]);
    // Unset: every way at once, the embedded case's installation information included.
    expect(pairs(lgpl, EVERY_WAY).map((p) => p[1])).toContain("installation-information");
    expect(pairs([{ expression: "MIT", componentCount: 1 }], EVERY_WAY).map((p) => p[1])).toEqual([
      "include-license-text",
      "retain-notices",
      "state-changes",
    ]);
  });

  it("asks for a review of what cannot be evaluated, under the expression as written", () => {
    expect(
      pairs([
        { expression: "LGPL-3.0-or-later AND BSD-3", componentCount: 2 },
        { expression: null, componentCount: 9 },
        { expression: "LicenseRef-acme", componentCount: 1 },
      ]),
    ).toEqual([
      ["LGPL-3.0-or-later AND BSD-3", "review-license-terms", 2],
      ["LicenseRef-acme", "review-license-terms", 1],
      ["NOASSERTION", "review-license-terms", 9],
    ]);
  });

  it("derives obligations for every real expression of the shared SBOMs, ids unique and per project", () => {
    const expressions = sbomLicenseExpressions().map((expression) => ({ expression, componentCount: 1 }));
    expect(expressions.length).toBeGreaterThan(50);
    const found = derive(expressions, EVERY_WAY);
    expect(new Set(found.map((o) => o.id)).size).toBe(found.length);
    expect(found.some((o) => o.license === "GPL-3.0-only" && o.obligation === "disclose-complete-source")).toBe(true);
    expect(obligationIdOf(PROJECT, "MIT", "retain-notices")).not.toBe(
      obligationIdOf("8c1e2b9a-0d4f-4f6e-8a3b-5e2d1c0b9a87", "MIT", "retain-notices"),
    );
  });

  it("sorts by the spec's comma-separated fields, refusing an unknown one", () => {
    const found = derive([
      { expression: "MIT", componentCount: 5 },
      { expression: "GPL-3.0-only", componentCount: 1 },
    ]).map((o) => ({ ...o, fulfilled: o.obligation === "retain-notices" }));
    const sort = parseObligationSort("-license_category,component_count");
    expect(sort.ok).toBe(true);
    const sorted = sortObligations(found, sort.ok ? sort.keys : []);
    expect(sorted[0]!.license).toBe("GPL-3.0-only");
    expect(sorted.at(-1)!.license).toBe("MIT");
    expect(sortObligations(found, [{ field: "fulfilled", descending: true }])[0]!.obligation).toBe("retain-notices");
    expect(parseObligationSort("name")).toEqual({ ok: false, field: "name" });
  });
});

describe("the notice's pieces", () => {
  it("names a component on lines no field can forge", () => {
    expect(
      componentEntry({
        name: "lodash\nLicense: MIT",
        version: "4.17.21",
        purl: "pkg:npm/lodash@4.17.21",
        license: "MIT",
        copyright: "Copyright OpenJS Foundation",
      }),
    ).toBe(
      `${"-".repeat(78)}\nlodash License: MIT 4.17.21\nPackage URL: pkg:npm/lodash@4.17.21\nLicense: MIT\n` +
        "Copyright: Copyright OpenJS Foundation\n\n",
    );
    expect(componentEntry({ name: "x" })).toContain("License: NOASSERTION");
  });

  it("lists the ids of an expression, exceptions and `+` included", () => {
    expect(licenseIdsOf("(MIT OR Apache-2.0 WITH LLVM-exception) AND LGPL-2.1+")).toEqual([
      "MIT",
      "Apache-2.0",
      "LLVM-exception",
      "LGPL-2.1+",
    ]);
    expect(licenseIdsOf("BSD-3 junk")).toEqual([]);
    expect(licenseIdsOf(undefined)).toEqual([]);
  });

  it("appends the SPDX text of a listed license, and says where to read the others", async () => {
    const mit = await licenseText("MIT");
    expect(mit?.text).toContain("Permission is hereby granted, free of charge");
    expect(licenseSection("MIT", mit)).toContain("MIT: MIT License");
    expect((await licenseText("GPL-2.0+"))?.text).toContain("GNU GENERAL PUBLIC LICENSE");
    expect(await licenseText("LicenseRef-acme")).toBeNull();
    expect(await licenseText("../../package")).toBeNull();
    expect(licenseSection("LLVM-exception", null)).toContain("https://spdx.org/licenses/LLVM-exception.html");
    expect(licenseSection("LicenseRef-acme", null)).toContain("Not in the SPDX License List");
  });
});

describe("fulfilments", () => {
  it("takes an optional note and an http(s) evidence_url", () => {
    expect(planFulfilment({})).toEqual({ ok: true, fields: { note: null, evidenceUrl: null } });
    expect(planFulfilment({ note: " done ", evidenceUrl: "https://wiki.example.com/notice" })).toEqual({
      ok: true,
      fields: { note: "done", evidenceUrl: "https://wiki.example.com/notice" },
    });
    expect(planFulfilment({ note: "x".repeat(4001), evidenceUrl: "javascript:alert(1)" })).toEqual({
      ok: false,
      violations: [
        { path: "note", message: "must be at most 4000 characters" },
        { path: "evidence_url", message: "must be an http or https URL" },
      ],
    });
  });

  it("is recorded by a developer or above on the project's team, or a super_admin", () => {
    const person = (role: "viewer" | "developer" | "team_admin", superAdmin = false): Caller => ({
      kind: "user",
      user_id: "u",
      email: null,
      is_superuser: superAdmin,
      memberships: [{ team_id: "t", organization_id: null, role }],
      api_key_id: null,
      api_key: null,
      ip: null,
      user_agent: null,
    });
    expect(mayFulfil(person("viewer"), "t")).toBe(false);
    expect(mayFulfil(person("developer"), "t")).toBe(true);
    expect(mayFulfil(person("team_admin"), "other")).toBe(false);
    expect(mayFulfil(person("viewer", true), "other")).toBe(true);
  });
});
