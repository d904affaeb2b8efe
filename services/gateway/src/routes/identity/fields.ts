// Request fields of the sign-in routes that identity judges again: e-mail addresses and passwords.
import { z } from "zod";

// Passwords are bounded in code points, as identity counts them (docs/identity.md, Passwords).
export function codePoints(min: number, max: number) {
  return z
    .string()
    .refine((s) => {
      const n = [...s].length;
      return n >= min && n <= max;
    }, `must be between ${min} and ${max} characters`)
    .meta({ minLength: min, maxLength: max });
}

// Identity's loose shape (services/identity/src/domain/email-address.ts); identity judges it again.
export const emailAddress = z
  .string()
  .trim()
  .max(320)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "must be an e-mail address")
  .meta({ format: "email" });
