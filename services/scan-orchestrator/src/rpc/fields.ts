// Small readers of request fields shared by the handlers.
import { ProblemError } from "@sca/problem";
import { isUuid } from "../domain/batch.ts";
import {
  isScanKind,
  isScanStatus,
  SCAN_KINDS,
  SCAN_STATUSES,
  type ScanKind,
  type ScanStatus,
} from "../domain/scan-state.ts";

/** A 422 naming one field of the request. */
export const invalid = (path: string, message: string) => ProblemError.validation([{ path, message }]);

/** A path id that is not a UUID names nothing: NotFound, like an unknown one. */
export function pathId(value: string): string {
  if (!isUuid(value)) throw ProblemError.notFound("No such scan.");
  return value.toLowerCase();
}

/** A filter id: absent when empty, 422 when not a UUID. */
export function filterId(value: string, path: string): string | null {
  if (value === "") return null;
  if (!isUuid(value)) throw ProblemError.validation([{ path, message: "must be a UUID" }]);
  return value.toLowerCase();
}

export function statusFilter(value: string, path = "query.status"): ScanStatus | null {
  if (value === "") return null;
  if (!isScanStatus(value))
    throw ProblemError.validation([{ path, message: `must be one of ${SCAN_STATUSES.join(", ")}` }]);
  return value;
}

export function kindFilter(value: string, path = "query.kind"): ScanKind | null {
  if (value === "") return null;
  if (!isScanKind(value)) throw ProblemError.validation([{ path, message: `must be one of ${SCAN_KINDS.join(", ")}` }]);
  return value;
}
