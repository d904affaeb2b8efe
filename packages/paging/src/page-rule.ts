// The spec's page bounds (concepts "Limits"), the one rule behind both the gateway's query schemas and the
// services' reading of a sca.common.v1.PageRequest: page is 1-based and at most PAGE_MAX; a page size has a default
// and a maximum per endpoint; a value past a bound is rejected, never clamped.

export const PAGE_MIN = 1;
export const PAGE_MAX = 1_000_000;
/** The largest row offset of the offset shape: offsets travel as int32, and no listing is that long. */
export const OFFSET_MAX = 2_147_483_647;
export const PAGE_SIZE_MIN = 1;

export interface PageSizeRule {
  /** The page size when the caller gives none. */
  readonly defaultSize: number;
  /** The largest page size the endpoint serves. */
  readonly maxSize: number;
}

/** The rule of an endpoint, refused at declaration when it cannot hold (whole sizes, 1 <= default <= maximum). */
export function pageSizeRule(rule: PageSizeRule): PageSizeRule {
  const { defaultSize, maxSize } = rule;
  if (!(
    Number.isInteger(defaultSize) &&
    Number.isInteger(maxSize) &&
    defaultSize >= PAGE_SIZE_MIN &&
    defaultSize <= maxSize
  )) {
    throw new RangeError("pagination needs whole sizes with 1 <= defaultSize <= maxSize");
  }
  return { defaultSize, maxSize };
}

/** The spec's numbered (page, page_size) shape where the endpoint names no other: 50 by default, 200 at most. */
export const NUMBERED_PAGE_SIZE = pageSizeRule({ defaultSize: 50, maxSize: 200 });

/** The spec's per-project offset shape (concepts "Limits"): 50 by default, 500 at most. */
export const PROJECT_PAGE_SIZE = pageSizeRule({ defaultSize: 50, maxSize: 500 });

/** The spec's search pages (numbered, `size`): 25 by default, 100 at most. */
export const SEARCH_PAGE_SIZE = pageSizeRule({ defaultSize: 25, maxSize: 100 });

/** Whether `page` is a page number the spec allows. */
export function isPageNumber(page: number): boolean {
  return Number.isInteger(page) && page >= PAGE_MIN && page <= PAGE_MAX;
}

/** Whether `size` is a page size `rule` allows. */
export function isPageSize(size: number, rule: PageSizeRule): boolean {
  return Number.isInteger(size) && size >= PAGE_SIZE_MIN && size <= rule.maxSize;
}
