// The numbered page shape (page, page_size) of the spec's Limits: a request past a cap is rejected, not clamped.
import type { FieldViolation } from "@sca/problem";

export interface PageRequest { page: number; pageSize: number }

export const PAGE_MAX = 1_000_000;
export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 200;

/** Zero means "not given" (protobuf's default) and takes the default. */
export function readPage(page: number, pageSize: number): { ok: true; value: PageRequest } | { ok: false; violations: FieldViolation[] } {
  const p = page || 1;
  const size = pageSize || PAGE_SIZE_DEFAULT;
  const violations: FieldViolation[] = [];
  if (!Number.isInteger(p) || p < 1 || p > PAGE_MAX) violations.push({ path: "query.page", message: `must be between 1 and ${PAGE_MAX}` });
  if (!Number.isInteger(size) || size < 1 || size > PAGE_SIZE_MAX) violations.push({ path: "query.page_size", message: `must be between 1 and ${PAGE_SIZE_MAX}` });
  return violations.length ? { ok: false, violations } : { ok: true, value: { page: p, pageSize: size } };
}

export function offsetOf(req: PageRequest): number {
  return (req.page - 1) * req.pageSize;
}
