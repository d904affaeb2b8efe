// License findings through the gateway (docs/findings.md, "License findings"): a real SBOM (juice-shop's) ingested
// into a real projects service, its components' license categories set as the license-policy stage sets them, then
// GET /v1/projects/{id}/licenses (filters, the spec's sort rule, offset paging, hiding) and its CSV, the same rows
// unpaged.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { fixturesOf } from "@sca/testkit";
import type { ProjectsStack } from "./projects-stack.ts";
import { startJuiceShopProject, type JuiceShopProject } from "./support/juice-shop-project.ts";

let juice: JuiceShopProject;
let s: ProjectsStack;
let member: string;
let outsider: string;
let projectId: string;
let scanId: string;

beforeAll(async () => {
  juice = await startJuiceShopProject({ name: "Juice", slug: "juice" });
  ({ stack: s, member, outsider, projectId, scanId } = juice);
  // The license-policy stage's verdicts: GPL family forbidden, MIT allowed (its column, as that stage writes it).
  const projectsFixtures = await fixturesOf("projects");
  await projectsFixtures.write(
    s.projects.orm,
    "update inventory_components set license_category = 'forbidden' where scan_id = ? and license ilike '%GPL%'",
    [scanId],
  );
  await projectsFixtures.write(
    s.projects.orm,
    "update inventory_components set license_category = 'allowed' where scan_id = ? and license = 'MIT'",
    [scanId],
  );
}, 60_000);

afterAll(async () => {
  await juice?.close();
});

const path = (query = "") => `/v1/projects/${projectId}/licenses${query}`;
type Finding = Record<string, unknown>;

async function all(query: string): Promise<Finding[]> {
  const out: Finding[] = [];
  for (let offset = 0; ; offset += 500) {
    const r = await s.request("GET", path(`?limit=500&offset=${offset}${query}`), { bearer: member });
    expect(r.status).toBe(200);
    out.push(...(r.json.items as Finding[]));
    if (out.length >= (r.json.total as number)) return out;
  }
}

/** The database's own order of two texts (the list sorts in its collation), nulls last. */
async function sortedInDatabase(values: (string | null)[]): Promise<(string | null)[]> {
  const rows = await s.projects.orm.em
    .getConnection()
    .execute<{ v: string | null }[]>(
      "select v from jsonb_array_elements_text(?::jsonb) with ordinality as t(v, n) order by v asc nulls last, n",
      [JSON.stringify(values)],
    );
  return rows.map((r) => r.v);
}

describe("GET /v1/projects/{id}/licenses", () => {
  it("answers one finding per component of the newest snapshot, sorted by license then component", async () => {
    const components = (await s.request("GET", `/v1/projects/${projectId}/components?limit=1`, { bearer: member }))
      .json;
    const first = await s.request("GET", path(), { bearer: member });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ limit: 50, offset: 0, total: components.total });
    const items = await all("");
    expect(items).toHaveLength(components.total as number);
    expect(items[0]).toMatchObject({ project_id: projectId, scan_id: scanId });
    expect(Object.keys(items[0]!).sort()).toEqual(
      [
        "id",
        "project_id",
        "scan_id",
        "component_id",
        "component_name",
        "component_version",
        "purl",
        "direct",
        "license",
        "license_ids",
        "declared_license",
        "concluded_license",
        "license_category",
      ].sort(),
    );
    const licenses = items.map((i) => i.license as string | null);
    expect(licenses).toEqual(await sortedInDatabase(licenses));
    expect(new Set(licenses).size).toBeGreaterThan(5);
  });

  it("filters by category and search; -license sorts descending", async () => {
    const forbidden = await all("&license_category=forbidden");
    expect(forbidden.length).toBeGreaterThan(0);
    for (const f of forbidden)
      expect(f).toMatchObject({ license_category: "forbidden", license: expect.stringMatching(/GPL/i) });
    const both = await all("&license_category[]=forbidden&license_category[]=allowed");
    expect(both.length).toBe(forbidden.length + (await all("&license_category=allowed")).length);
    const express = await all("&search=express");
    expect(express.length).toBeGreaterThan(0);
    for (const f of express)
      expect(`${f.component_name as string} ${f.purl as string}`.toLowerCase()).toContain("express");
    const descending = (await all("&sort=-license,component")).map((i) => i.license as string | null);
    expect(descending.filter((l) => l !== null)).toEqual(
      (await sortedInDatabase(descending)).filter((l) => l !== null).reverse(),
    );
  });

  it("answers problem+json for bad input and 404 to a caller who may not read the project", async () => {
    for (const q of ["?sort=severity", "?sort=license,bogus", "?limit=501", "?offset=-1", "?direct=yes"]) {
      const r = await s.request("GET", path(q), { bearer: member });
      expect([q, r.status, r.contentType]).toEqual([q, 422, expect.stringMatching(/application\/problem\+json/)]);
    }
    const csv = await s.request("GET", path("/export.csv?sort=bogus"), { bearer: member });
    expect(csv.status).toBe(422);
    for (const p of [path(), path("/export.csv")]) {
      const r = await s.request("GET", p, { bearer: outsider });
      expect([r.status, r.contentType]).toEqual([404, expect.stringMatching(/problem\+json/)]);
    }
    expect((await s.request("GET", `/v1/projects/${randomUUID()}/licenses`, { bearer: member })).status).toBe(404);
  });

  it("exports the same rows as CSV, unpaginated and streamed", async () => {
    const items = await all("&license_category=forbidden");
    const csv = await s.request("GET", path("/export.csv?license_category=forbidden"), { bearer: member });
    expect(csv.status).toBe(200);
    expect(csv.contentType).toMatch(/text\/csv/);
    const lines = csv.text.trim().split("\r\n");
    expect(lines[0]).toBe(
      "id,component_id,component_name,component_version,purl,direct,license,license_category,declared_license,concluded_license",
    );
    expect(
      lines
        .slice(1)
        .map((l) => l.split(",")[0])
        .sort(),
    ).toEqual(items.map((i) => i.id as string).sort());
    const whole = await s.request("GET", path("/export.csv"), { bearer: member });
    expect(whole.text.trim().split("\r\n")).toHaveLength(1 + (await all("")).length);
  });
});
