// Field-level normalisation shared by every format: purls, hashes, parties, plain strings.
import { PackageURL } from "packageurl-js";
import type { ComponentHash } from "./inventory.ts";

/** The canonical form of a purl (packageurl-js: type lower-cased, qualifiers sorted, parts re-encoded), or null. */
export function canonicalPurl(text: string): string | null {
  try {
    return PackageURL.fromString(text.trim()).toString();
  } catch {
    return null;
  }
}

// Algorithm names as CycloneDX spells them, keyed by the name upper-cased with everything but letters and digits
// removed, so SPDX 2 (SHA256, SHA3_256, BLAKE2b-256), SPDX 3 (sha256, blake2b256) and CycloneDX agree.
const HASH_ALGORITHMS = new Map<string, string>(
  [
    "MD2",
    "MD4",
    "MD5",
    "MD6",
    "SHA-1",
    "SHA-224",
    "SHA-256",
    "SHA-384",
    "SHA-512",
    "SHA3-224",
    "SHA3-256",
    "SHA3-384",
    "SHA3-512",
    "BLAKE2b-256",
    "BLAKE2b-384",
    "BLAKE2b-512",
    "BLAKE3",
    "ADLER32",
  ].map((name) => [name.toUpperCase().replace(/[^A-Z0-9]/g, ""), name]),
);

/** A hash with its algorithm in CycloneDX spelling and its value in lower-case hex; null when either is empty. */
export function normaliseHash(algorithm: unknown, value: unknown): ComponentHash | null {
  const alg = text(algorithm);
  const content = text(value);
  if (!alg || !content) return null;
  const known = HASH_ALGORITHMS.get(alg.toUpperCase().replace(/[^A-Z0-9]/g, ""));
  return { algorithm: known ?? alg.toUpperCase(), value: content.toLowerCase() };
}

/** Hashes without repeats of the same algorithm (the first value wins). */
export function distinctHashes(hashes: Array<ComponentHash | null>): ComponentHash[] {
  const byAlgorithm = new Map<string, ComponentHash>();
  for (const hash of hashes) if (hash && !byAlgorithm.has(hash.algorithm)) byAlgorithm.set(hash.algorithm, hash);
  return [...byAlgorithm.values()];
}

/** A trimmed non-empty string, else null. Numbers become strings (XML and hand-written JSON mix them). */
export function text(value: unknown): string | null {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

/** SPDX 2 party ("Organization: Acme (ops@acme.test)", "Person: Jo", NOASSERTION) as a name. */
export function spdxPartyName(value: unknown): string | null {
  const raw = text(value);
  if (!raw || /^(NOASSERTION|NONE)$/i.test(raw)) return null;
  const name = raw
    .replace(/^(Organization|Person|Tool)\s*:\s*/i, "")
    .replace(/\s*\([^()]*@[^()]*\)\s*$/, "")
    .trim();
  return name || null;
}

export function asArray(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null ? [] : [value];
}

export function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
