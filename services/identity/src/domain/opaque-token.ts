// Refresh and reset tokens: 256 random bits, given to the client once, stored only as a SHA-256 digest
// (the entropy makes a slow hash unnecessary; a database leak yields no usable token).
import { createHash, randomBytes } from "node:crypto";

export function newOpaqueToken(): { raw: string; hash: string } {
  const raw = randomBytes(32).toString("base64url");
  return { raw, hash: hashOpaqueToken(raw) };
}

export function hashOpaqueToken(raw: string): string {
  return createHash("sha256").update(raw, "utf8").digest("hex");
}
