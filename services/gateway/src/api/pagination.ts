// The three pagination shapes of the spec's Limits table. Each gives a query schema for the endpoint's default
// and maximum page size, the response envelope's schema, and the envelope itself. The bounds are @sca/paging's, the
// one rule the services read their PageRequest with: a page size past the maximum, or a page outside 1..1000000, is
// a 422, never clamped.
import { OFFSET_MAX, PAGE_MAX, PAGE_MIN, PAGE_SIZE_MIN, pageSizeRule, type PageSizeRule } from "@sca/paging";
import { z } from "zod";
import { SerialisedJson } from "./route.ts";

export type { PageSizeRule } from "@sca/paging";

const pageSize = (rule: PageSizeRule) => {
  const { defaultSize, maxSize } = pageSizeRule(rule);
  return z.coerce.number().int().min(PAGE_SIZE_MIN).max(maxSize).default(defaultSize);
};

const pageNumber = () =>
  z.coerce.number().int().min(PAGE_MIN).max(PAGE_MAX).default(PAGE_MIN).meta({ description: "1-based page number" });
const count = () => z.number().int().min(0);
const positive = () => z.number().int().min(1);

/** Offset shape: `limit`, `offset` -> items, total, limit, offset. */
export const offsetPagination = {
  query: (rule: PageSizeRule) =>
    z.object({
      limit: pageSize(rule).meta({ description: "Rows per page" }),
      offset: z.coerce.number().int().min(0).max(OFFSET_MAX).default(0).meta({ description: "Rows to skip (0-based)" }),
    }),
  envelope: <T extends z.ZodType>(item: T) =>
    z.object({ items: z.array(item), total: count(), limit: positive(), offset: count() }),
  page: <T>(items: T[], total: number, query: { limit: number; offset: number }) => ({
    items,
    total,
    limit: query.limit,
    offset: query.offset,
  }),
  /** The same envelope around items a service serialised (a JSON array; no bytes: an empty page). */
  serialisedPage: (itemsJson: Uint8Array, total: number, query: { limit: number; offset: number }) =>
    new SerialisedJson(
      Buffer.from('{"items":'),
      itemsJson.byteLength ? itemsJson : Buffer.from("[]"),
      Buffer.from(`,"total":${total},"limit":${query.limit},"offset":${query.offset}}`),
    ),
};

/** Numbered shape with `page_size`: `page`, `page_size` -> items, total, page, page_size. */
export const pageSizePagination = {
  query: (rule: PageSizeRule) =>
    z.object({ page: pageNumber(), page_size: pageSize(rule).meta({ description: "Rows per page" }) }),
  envelope: <T extends z.ZodType>(item: T) =>
    z.object({ items: z.array(item), total: count(), page: positive(), page_size: positive() }),
  page: <T>(items: T[], total: number, query: { page: number; page_size: number }) => ({
    items,
    total,
    page: query.page,
    page_size: query.page_size,
  }),
  /** The sca.common.v1.PageRequest a service's List reads. */
  request: (query: { page: number; page_size: number }) => ({ page: query.page, pageSize: query.page_size }),
};

/** Numbered shape with `size`: `page`, `size` -> items, total, page, page_size. */
export const sizePagination = {
  query: (rule: PageSizeRule) =>
    z.object({ page: pageNumber(), size: pageSize(rule).meta({ description: "Rows per page" }) }),
  envelope: <T extends z.ZodType>(item: T) =>
    z.object({ items: z.array(item), total: count(), page: positive(), page_size: positive() }),
  page: <T>(items: T[], total: number, query: { page: number; size: number }) => ({
    items,
    total,
    page: query.page,
    page_size: query.size,
  }),
};
