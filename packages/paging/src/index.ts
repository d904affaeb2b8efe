export {
  NUMBERED_PAGE_SIZE,
  PROJECT_PAGE_SIZE,
  SEARCH_PAGE_SIZE,
  OFFSET_MAX,
  PAGE_MAX,
  PAGE_MIN,
  PAGE_SIZE_MIN,
  isPageNumber,
  isPageSize,
  pageSizeRule,
} from "./page-rule.ts";
export type { PageSizeRule } from "./page-rule.ts";
export { pageInfo, pageOf, readPage } from "./page-request.ts";
export type { Page, PageFieldPaths, PageReading } from "./page-request.ts";
export { jsonArrayBytes } from "./json-array.ts";
