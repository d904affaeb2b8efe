// API keys look like tos_<prefix>_<secret>. The prefix finds the row; the whole key is stored only as an
// HMAC-SHA256 under a key derived from SECRET_KEY (so a database dump alone cannot confirm a guess), and is
// compared in constant time. Rows from before HMAC storage hold bcrypt hashes and still verify.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import bcrypt from "bcryptjs";

export const API_KEY_MARKER = "tos_";
const PREFIX_LENGTH = 12;
const SECRET_BYTES = 32;
const SHAPE = /^tos_([a-z0-9]{8,32})_([A-Za-z0-9_-]{20,128})$/;

export type HashFormat = "hmac_sha256" | "bcrypt";

export interface ParsedApiKey {
  prefix: string;
  raw: string;
}

export function looksLikeApiKey(bearer: string): boolean {
  return bearer.startsWith(API_KEY_MARKER);
}

/** The prefix of a well-formed key, or null. */
export function parseApiKey(raw: string): ParsedApiKey | null {
  const m = SHAPE.exec(raw);
  return m ? { prefix: m[1]!, raw } : null;
}

/** A fresh key: a lower-case hex prefix (shown in lists) and a 256-bit base64url secret. */
export function generateApiKey(): { prefix: string; raw: string } {
  const prefix = randomBytes(PREFIX_LENGTH / 2).toString("hex");
  const secret = randomBytes(SECRET_BYTES).toString("base64url");
  return { prefix, raw: `${API_KEY_MARKER}${prefix}_${secret}` };
}

/** The HMAC key for API-key hashes: its own derivation, so it is never the JWT signing key itself. */
export function deriveApiKeyHashKey(secretKey: string): Buffer {
  return createHmac("sha256", secretKey).update("sca/api-key-hash/v1").digest();
}

export function hashApiKey(raw: string, hashKey: Buffer): string {
  return createHmac("sha256", hashKey).update(raw).digest("hex");
}

/** Constant-time for HMAC rows; bcrypt's own comparison for legacy rows. */
export async function verifyApiKeyHash(
  raw: string,
  stored: string,
  format: HashFormat,
  hashKey: Buffer,
): Promise<boolean> {
  if (format === "bcrypt") return bcrypt.compare(raw, stored);
  const expected = Buffer.from(stored, "hex");
  const actual = Buffer.from(hashApiKey(raw, hashKey), "hex");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
