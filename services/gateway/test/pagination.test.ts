// The three pagination shapes: defaults, caps rejected (never clamped), page bounds, envelopes; and a 422
// through a real route.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { z } from "zod";
import { offsetPagination, pageSizePagination, sizePagination } from "../src/api/pagination.ts";
import { defineRoute } from "../src/api/route.ts";
import { problemOf, startTestGateway, type TestGateway } from "./harness.ts";

const errorsOf = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path.join("."));
};

describe("offset pagination (limit, offset)", () => {
  const perProject = offsetPagination.query({ defaultSize: 50, maxSize: 500 });
  const inventory = offsetPagination.query({ defaultSize: 50, maxSize: 200 });

  it("defaults the limit to the endpoint's default and the offset to 0", () => {
    expect(perProject.parse({})).toEqual({ limit: 50, offset: 0 });
    expect(perProject.parse({ limit: "500", offset: "1000" })).toEqual({ limit: 500, offset: 1000 });
  });

  it("rejects a limit past the endpoint's maximum instead of clamping", () => {
    expect(errorsOf(perProject, { limit: "501" })).toEqual(["limit"]);
    expect(errorsOf(inventory, { limit: "201" })).toEqual(["limit"]);
    expect(errorsOf(inventory, { limit: "200" })).toEqual([]);
  });

  it("rejects zero, negative, fractional and non-numeric values", () => {
    expect(errorsOf(inventory, { limit: "0" })).toEqual(["limit"]);
    expect(errorsOf(inventory, { offset: "-1" })).toEqual(["offset"]);
    expect(errorsOf(inventory, { limit: "2.5" })).toEqual(["limit"]);
    expect(errorsOf(inventory, { limit: "ten", offset: "x" })).toEqual(["limit", "offset"]);
    expect(errorsOf(inventory, { limit: ["10", "20"] })).toEqual(["limit"]);
  });

  it("builds the items, total, limit, offset envelope", () => {
    const page = offsetPagination.page(["a"], 7, { limit: 1, offset: 3 });
    expect(page).toEqual({ items: ["a"], total: 7, limit: 1, offset: 3 });
    expect(offsetPagination.envelope(z.string()).parse(page)).toEqual(page);
  });
});

describe("numbered pagination (page, page_size)", () => {
  const notifications = pageSizePagination.query({ defaultSize: 20, maxSize: 200 });

  it("defaults page 1 and the endpoint's page size", () => {
    expect(notifications.parse({})).toEqual({ page: 1, page_size: 20 });
  });

  it("rejects a page size past the maximum and a page outside 1..1000000", () => {
    expect(errorsOf(notifications, { page_size: "201" })).toEqual(["page_size"]);
    expect(errorsOf(notifications, { page: "0" })).toEqual(["page"]);
    expect(errorsOf(notifications, { page: "1000001" })).toEqual(["page"]);
    expect(notifications.parse({ page: "1000000", page_size: "200" })).toEqual({ page: 1_000_000, page_size: 200 });
  });

  it("builds the items, total, page, page_size envelope", () => {
    expect(pageSizePagination.page([1, 2], 12, { page: 2, page_size: 10 })).toEqual({
      items: [1, 2],
      total: 12,
      page: 2,
      page_size: 10,
    });
  });
});

describe("numbered pagination (page, size)", () => {
  const sourceTree = sizePagination.query({ defaultSize: 100, maxSize: 500 });
  const projects = sizePagination.query({ defaultSize: 20, maxSize: 100 });

  it("takes `size` and answers `page_size`", () => {
    expect(projects.parse({})).toEqual({ page: 1, size: 20 });
    expect(sourceTree.parse({ size: "500" })).toEqual({ page: 1, size: 500 });
    expect(sizePagination.page([], 0, { page: 3, size: 25 })).toEqual({ items: [], total: 0, page: 3, page_size: 25 });
  });

  it("rejects a size past the maximum", () => {
    expect(errorsOf(projects, { size: "101" })).toEqual(["size"]);
    expect(errorsOf(sourceTree, { size: "501" })).toEqual(["size"]);
  });

  it("refuses an impossible rule at declaration", () => {
    expect(() => sizePagination.query({ defaultSize: 200, maxSize: 100 })).toThrow(RangeError);
  });
});

describe("through a route", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      routes: () => [
        defineRoute({
          method: "get",
          path: "/v1/test-notifications",
          summary: "test: a numbered list",
          tags: ["test"],
          request: { query: pageSizePagination.query({ defaultSize: 20, maxSize: 200 }) },
          responses: { 200: { description: "a page", schema: pageSizePagination.envelope(z.number()) } },
          handler: ({ query }) => ({ status: 200, body: pageSizePagination.page([1, 2, 3], 3, query) }),
        }),
      ],
    });
  });
  afterAll(async () => {
    await gw.close();
  });

  it("applies defaults and answers the envelope", async () => {
    expect(await (await fetch(`${gw.origin}/api/v1/test-notifications`)).json()).toEqual({
      items: [1, 2, 3],
      total: 3,
      page: 1,
      page_size: 20,
    });
  });

  it("answers 422 naming the query field past its cap", async () => {
    const res = await fetch(`${gw.origin}/api/v1/test-notifications?page_size=201&page=0`);
    expect(res.status).toBe(422);
    const doc = await problemOf(res);
    expect((doc.errors as { path: string }[]).map((e) => e.path)).toEqual(["query.page", "query.page_size"]);
  });
});
