// Request bounds that identity enforces itself (the gateway checks them too, but identity owns the rules).
import { ProblemError, type FieldViolation } from "@sca/problem";
import { isEmailAddress, normalizeEmail } from "../domain/email-address.ts";
import { newPasswordViolation, passwordLength } from "../domain/password-policy.ts";

export function failIfAny(violations: FieldViolation[]): void {
  if (violations.length) throw ProblemError.validation(violations);
}

export function emailField(raw: string, path = "body.email", violations: FieldViolation[]): string {
  const email = normalizeEmail(raw);
  if (!isEmailAddress(email)) violations.push({ path, message: "must be an e-mail address" });
  return email;
}

export function newPasswordField(password: string, path: string, violations: FieldViolation[]): void {
  const why = newPasswordViolation(password);
  if (why) violations.push({ path, message: why });
}

export function lengthField(value: string, path: string, min: number, max: number, violations: FieldViolation[]): void {
  const n = passwordLength(value);
  if (n < min || n > max) violations.push({ path, message: `must be between ${min} and ${max} characters` });
}
