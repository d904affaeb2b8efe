import { describe, expect, it } from "@jest/globals";
import { expressPath, templateMatcher } from "../src/api/path-template.ts";

describe("path templates", () => {
  it("turn into express paths, escaping what path-to-regexp reserves", () => {
    expect(expressPath("/v1/projects/{project_id}/scans")).toBe("/v1/projects/:project_id/scans");
    expect(expressPath("/v1/projects:batch")).toBe("/v1/projects\\:batch");
    expect(expressPath("/v1/projects/export.csv")).toBe("/v1/projects/export.csv");
    expect(expressPath("/v1/a(b)/{x}*")).toBe("/v1/a\\(b\\)/:x\\*");
  });

  it("match canonical paths and decode their parameters", () => {
    const match = templateMatcher("/v1/projects/{project_id}/scans/{scan_id}");
    expect(match("/v1/projects/p%201/scans/s2")).toEqual({ project_id: "p 1", scan_id: "s2" });
    expect(match("/V1/PROJECTS/p/SCANS/s")).toEqual({ project_id: "p", scan_id: "s" });
    expect(match("/v1/projects/p/scans")).toBeUndefined();
    expect(match("/v1/projects/p/q/scans/s")).toBeUndefined();
    expect(match("/v1/projects/%E0%A4%A/scans/s")).toBeUndefined();
    expect(templateMatcher("/v1/projects:batch")("/v1/projectsXbatch")).toBeUndefined();
    expect(templateMatcher("/v1/projects/export.csv")("/v1/projects/exportXcsv")).toBeUndefined();
  });
});
