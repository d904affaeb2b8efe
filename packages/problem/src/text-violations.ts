// Text the portal cannot store: PostgreSQL text and JSONB refuse the NUL character, and an unpaired UTF-16
// surrogate is not Unicode text at all (UTF-8 cannot encode it, so it would be silently replaced on the way). Both
// are refused wherever a field enters, as a 422 naming the field, rather than failing deep inside a service.

import type { FieldViolation } from "./problem-error.ts";

const NUL = "must not contain the NUL character (U+0000)";
const SURROGATE = "must not contain an unpaired UTF-16 surrogate; send well-formed Unicode text";

function textProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return NUL;
  if (!text.isWellFormed()) return SURROGATE;
  return undefined;
}

/**
 * Every string (and object key) inside `value` that cannot be stored, each reported at its path below `path`
 * (`body.members.0.name`; `path` "" gives `members.0.name`). Walks parsed JSON and protobuf-es messages alike: bytes and `$typeName` are skipped.
 */
const join = (at: string, key: string) => (at ? `${at}.${key}` : key);

export function unstorableTextViolations(value: unknown, path: string): FieldViolation[] {
  const found: FieldViolation[] = [];
  const walk = (v: unknown, at: string): void => {
    if (typeof v === "string") {
      const message = textProblem(v);
      if (message) found.push({ path: at, message });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, join(at, String(i))));
    } else if (v instanceof Map) {
      for (const [k, item] of v) walk(item, join(at, String(k)));
    } else if (v !== null && typeof v === "object" && !ArrayBuffer.isView(v)) {
      for (const [k, item] of Object.entries(v)) {
        if (k === "$typeName") continue;
        const keyMessage = textProblem(k);
        // The path names the key readably even when the key itself is the offence.
        const key = keyMessage ? k.toWellFormed().replaceAll("\u0000", "\ufffd") : k;
        if (keyMessage) found.push({ path: join(at, key), message: `key ${keyMessage}` });
        walk(item, join(at, key));
      }
    }
  };
  walk(value, path);
  return found;
}
