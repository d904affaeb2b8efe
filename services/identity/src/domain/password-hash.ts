// Password hashes: scrypt (node:crypto) in a PHC-style string that carries its parameters, so the cost can be
// raised later and old hashes still verify (and are re-hashed at the next sign-in, see needsRehash).
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

export interface ScryptParams {
  logN: number;
  r: number;
  p: number;
}

// 2^15 × 8 × 128 B = 32 MiB and ~70 ms per hash on the 2-core development machine: a sign-in stays under
// 100 ms while an offline guess costs the same. Measured by bench/login.ts.
export const CURRENT_SCRYPT: ScryptParams = { logN: 15, r: 8, p: 1 };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function derive(password: string, salt: Buffer, params: ScryptParams, length: number): Promise<Buffer> {
  const N = 2 ** params.logN;
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

const b64 = (buf: Buffer) => buf.toString("base64").replace(/=+$/, "");

export async function hashPassword(password: string, params: ScryptParams = CURRENT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, params, KEY_LENGTH);
  return `$scrypt$ln=${params.logN},r=${params.r},p=${params.p}$${b64(salt)}$${b64(key)}`;
}

export function parseHash(phc: string): { params: ScryptParams; salt: Buffer; key: Buffer } | null {
  const m = PHC.exec(phc);
  if (!m) return null;
  const params = { logN: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  if (params.logN < 1 || params.logN > 24 || params.r < 1 || params.p < 1) return null;
  return { params, salt: Buffer.from(m[4]!, "base64"), key: Buffer.from(m[5]!, "base64") };
}

/** Constant-time comparison; an unparseable hash never verifies. */
export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const parsed = parseHash(phc);
  if (!parsed) return false;
  const candidate = await derive(password, parsed.salt, parsed.params, parsed.key.length);
  return timingSafeEqual(candidate, parsed.key);
}

export function needsRehash(phc: string, params: ScryptParams = CURRENT_SCRYPT): boolean {
  const parsed = parseHash(phc);
  return !parsed || parsed.params.logN !== params.logN || parsed.params.r !== params.r || parsed.params.p !== params.p;
}
