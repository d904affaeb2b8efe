import { randomBytes } from "node:crypto";

/** A name no other test run uses (schemas, topics, consumer groups, Redis key prefixes). */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${randomBytes(3).toString("hex")}`
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, "_");
}
