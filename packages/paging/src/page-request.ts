// A service's side of paging: a sca.common.v1.PageRequest read against the endpoint's rule into the rows to
// fetch (limit, offset), and the PageInfo of the answer.
import { create } from "@bufbuild/protobuf";
import { ProblemError, type FieldViolation } from "@sca/problem";
import { PageInfoSchema, type PageInfo, type PageRequest } from "@sca/proto/sca/common/v1/paging_pb.ts";
import { isPageNumber, isPageSize, PAGE_MAX, PAGE_MIN, PAGE_SIZE_MIN, type PageSizeRule } from "./page-rule.ts";

/** A page that passed the rule, with the rows it stands for. */
export interface Page {
  page: number;
  pageSize: number;
  /** Rows to fetch: the page size. */
  limit: number;
  /** Rows to skip: (page - 1) * pageSize. */
  offset: number;
}

/** Where the violations point: the query parameters of the edge unless said otherwise. */
export interface PageFieldPaths {
  page: string;
  pageSize: string;
}

const QUERY_PATHS: PageFieldPaths = { page: "query.page", pageSize: "query.page_size" };

export type PageReading = { ok: true; value: Page } | { ok: false; violations: FieldViolation[] };

/**
 * Reads a page request against `rule`. Zero (protobuf's "not given") takes the default: page 1, the rule's default
 * size. Anything else outside the bounds is a violation; nothing is clamped.
 */
export function readPage(
  request: Pick<PageRequest, "page" | "pageSize"> | undefined,
  rule: PageSizeRule,
  paths: PageFieldPaths = QUERY_PATHS,
): PageReading {
  const page = request?.page || PAGE_MIN;
  const pageSize = request?.pageSize || rule.defaultSize;
  const violations: FieldViolation[] = [];
  if (!isPageNumber(page))
    violations.push({ path: paths.page, message: `must be between ${PAGE_MIN} and ${PAGE_MAX}` });
  if (!isPageSize(pageSize, rule))
    violations.push({ path: paths.pageSize, message: `must be between ${PAGE_SIZE_MIN} and ${rule.maxSize}` });
  if (violations.length) return { ok: false, violations };
  return { ok: true, value: { page, pageSize, limit: pageSize, offset: (page - 1) * pageSize } };
}

/** The page `request` asks for, or a 422 problem naming the fields past their bounds. */
export function pageOf(
  request: Pick<PageRequest, "page" | "pageSize"> | undefined,
  rule: PageSizeRule,
  paths?: PageFieldPaths,
): Page {
  const read = readPage(request, rule, paths);
  if (!read.ok) throw ProblemError.validation(read.violations);
  return read.value;
}

/** The PageInfo of an answer serving `page` out of `total` matching rows. */
export function pageInfo(page: Pick<Page, "page" | "pageSize">, total: number): PageInfo {
  return create(PageInfoSchema, { total, page: page.page, pageSize: page.pageSize });
}
