// Small readers of request fields shared by the handlers.
import { ProblemError } from "@sca/problem";
import { UUID } from "@sca/ids";

export function isUuid(value: string | undefined | null): value is string {
  return typeof value === "string" && UUID.test(value);
}

/** A path id that is not a UUID names nothing: NotFound, like an unknown one. */
export function pathId(value: string): string {
  if (!isUuid(value)) throw ProblemError.notFound();
  return value.toLowerCase();
}

/** A body id that is not a UUID is a validation error. */
export function bodyId(value: string | undefined, path: string): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (!isUuid(value)) throw ProblemError.validation([{ path, message: "must be a UUID" }]);
  return value.toLowerCase();
}

/** A 422 naming one field. */
export function invalid(path: string, message: string): ProblemError {
  return ProblemError.validation([{ path, message }]);
}

/** Trimmed text within bounds, or a 422 naming the field. */
export function boundedText(value: string, path: string, min: number, max: number): string {
  const text = value.trim();
  if (text.length < min || text.length > max)
    throw ProblemError.validation([{ path, message: `must be ${min} to ${max} characters` }]);
  return text;
}
