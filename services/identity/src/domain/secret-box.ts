// Identity's secrets at rest (TOTP seeds) through @sca/secret-box, under identity's own HKDF salt (the one its
// sealed values were written with).
import { secretBoxKey as boxKey } from "@sca/secret-box";

export { open, seal } from "@sca/secret-box";

export function secretBoxKey(secretKey: string, purpose: string): Buffer {
  return boxKey(secretKey, purpose, "sca-identity");
}
