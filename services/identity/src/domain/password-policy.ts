// What a new password must be: 8..256 characters and not in a list of commonly used passwords
// (the ~49,000 of the maintained zxcvbn-ts common dictionary, compared case-insensitively).
import { dictionary } from "@zxcvbn-ts/language-common";

export const NEW_PASSWORD_MIN = 8;
export const NEW_PASSWORD_MAX = 256;
/** Sign-in accepts any stored password, so only the upper bound guards the hash cost. */
export const LOGIN_PASSWORD_MAX = 256;

const COMMON = new Set(dictionary["passwords-common"].map((p) => p.toLowerCase()));

/** Characters as a person counts them (code points), not UTF-16 units. */
export function passwordLength(password: string): number {
  return [...password].length;
}

/** Why a new password is refused, or null when it is acceptable. */
export function newPasswordViolation(password: string): string | null {
  const length = passwordLength(password);
  if (length < NEW_PASSWORD_MIN) return `must be at least ${NEW_PASSWORD_MIN} characters`;
  if (length > NEW_PASSWORD_MAX) return `must be at most ${NEW_PASSWORD_MAX} characters`;
  if (COMMON.has(password.toLowerCase()))
    return "is too common; choose a password that is not on lists of leaked passwords";
  return null;
}
