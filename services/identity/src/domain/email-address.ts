// E-mail addresses are compared and stored lower-cased (the users table enforces it).
export const EMAIL_MAX = 320;

// Deliberately loose: one @, no spaces, a dot in the domain. Deliverability is proven by the reset e-mail.
const SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

export function isEmailAddress(normalized: string): boolean {
  return normalized.length <= EMAIL_MAX && SHAPE.test(normalized);
}
