// The one paging rule: bounds, defaults for "not given", rejection instead of clamping, limit/offset, PageInfo.
import { describe, expect, it } from "@jest/globals";
import { create } from "@bufbuild/protobuf";
import { ProblemError } from "@sca/problem";
import { PageRequestSchema } from "@sca/proto/sca/common/v1/paging_pb.ts";
import {
  NUMBERED_PAGE_SIZE,
  isPageNumber,
  isPageSize,
  PAGE_MAX,
  pageInfo,
  pageOf,
  pageSizeRule,
  readPage,
} from "../src/index.ts";

const numbered = NUMBERED_PAGE_SIZE;
const request = (page: number, pageSize: number) => create(PageRequestSchema, { page, pageSize });

describe("the page bounds", () => {
  it("allows pages 1..1000000 and sizes 1..the endpoint's maximum, whole numbers only", () => {
    expect([0, 1, PAGE_MAX, PAGE_MAX + 1, 1.5, -1].map(isPageNumber)).toEqual([false, true, true, false, false, false]);
    expect([0, 1, 200, 201, 2.5].map((s) => isPageSize(s, numbered))).toEqual([false, true, true, false, false]);
  });

  it("gives the numbered shape 50 rows by default and 200 at most", () => {
    expect(NUMBERED_PAGE_SIZE).toEqual({ defaultSize: 50, maxSize: 200 });
  });

  it("refuses an impossible rule at declaration", () => {
    expect(() => pageSizeRule({ defaultSize: 200, maxSize: 100 })).toThrow(RangeError);
    expect(() => pageSizeRule({ defaultSize: 0, maxSize: 100 })).toThrow(RangeError);
    expect(() => pageSizeRule({ defaultSize: 2.5, maxSize: 100 })).toThrow(RangeError);
    expect(pageSizeRule({ defaultSize: 20, maxSize: 20 })).toEqual({ defaultSize: 20, maxSize: 20 });
  });
});

describe("reading a page request", () => {
  it("takes the defaults for fields not given (0) or a request not given", () => {
    expect(readPage(request(0, 0), numbered)).toEqual({
      ok: true,
      value: { page: 1, pageSize: 50, limit: 50, offset: 0 },
    });
    expect(readPage(undefined, pageSizeRule({ defaultSize: 20, maxSize: 200 }))).toEqual({
      ok: true,
      value: { page: 1, pageSize: 20, limit: 20, offset: 0 },
    });
  });

  it("turns the page into the rows to fetch", () => {
    expect(readPage(request(3, 200), numbered)).toEqual({
      ok: true,
      value: { page: 3, pageSize: 200, limit: 200, offset: 400 },
    });
    expect(readPage(request(PAGE_MAX, 1), numbered)).toMatchObject({ ok: true, value: { offset: PAGE_MAX - 1 } });
  });

  it("rejects, never clamps, naming each field past its bound", () => {
    expect(readPage(request(1, 201), numbered)).toEqual({
      ok: false,
      violations: [{ path: "query.page_size", message: "must be between 1 and 200" }],
    });
    expect(readPage(request(-1, 10), numbered)).toEqual({
      ok: false,
      violations: [{ path: "query.page", message: "must be between 1 and 1000000" }],
    });
    expect(readPage(request(PAGE_MAX + 1, -5), numbered)).toMatchObject({
      ok: false,
      violations: [{ path: "query.page" }, { path: "query.page_size" }],
    });
  });

  it("names the fields where the caller says they are", () => {
    expect(readPage(request(1, 500), numbered, { page: "page.page", pageSize: "page.page_size" })).toMatchObject({
      ok: false,
      violations: [{ path: "page.page_size" }],
    });
  });

  it("throws a 422 validation problem from pageOf", () => {
    expect(pageOf(request(2, 10), numbered)).toEqual({ page: 2, pageSize: 10, limit: 10, offset: 10 });
    let thrown: unknown;
    try {
      pageOf(request(0, 1000), numbered);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ProblemError);
    expect((thrown as ProblemError).init).toMatchObject({
      status: 422,
      code: "validation_error",
      violations: [{ path: "query.page_size" }],
    });
  });
});

describe("the page answer", () => {
  it("carries total, page and page size", () => {
    const info = pageInfo({ page: 2, pageSize: 10 }, 12);
    expect(info.$typeName).toBe("sca.common.v1.PageInfo");
    expect({ total: info.total, page: info.page, pageSize: info.pageSize }).toEqual({
      total: 12,
      page: 2,
      pageSize: 10,
    });
  });
});
