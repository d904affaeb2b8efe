// Secrets at rest (identity's TOTP seeds, projects' git credentials): AES-256-GCM under a key derived from
// SECRET_KEY with HKDF, a salt naming the owning service and a purpose label, so a stored value is useless without
// the deployment's key, is bound to its use, and tampering is detected.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";

/** The key for one use (`purpose`) of one service (`salt`, e.g. "sca-identity"). */
export function secretBoxKey(secretKey: string, purpose: string, salt: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secretKey, salt, purpose, 32));
}

export function seal(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [
    VERSION,
    iv.toString("base64url"),
    cipher.getAuthTag().toString("base64url"),
    body.toString("base64url"),
  ].join(".");
}

/** Throws when the value was not sealed under this key or was altered. */
export function open(sealed: string, key: Buffer): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error("not a sealed value");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}
