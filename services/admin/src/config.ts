// The keys admin reads besides the runtime's: where and how the audit log is shipped (docs/audit.md).
import { key, parse as p } from "@sca/config";

export const adminKeys = {
  /** Where the audit log is shipped in batches (POST, JSON); empty: not shipped. May carry a credential: secret. */
  AUDIT_EXPORT_URL: key(p.httpUrl(""), true),
  AUDIT_EXPORT_BATCH_SIZE: key(p.int(500, { min: 1, max: 5000, clamp: true })),
  AUDIT_EXPORT_LAG_SECONDS: key(p.int(30, { min: 0, max: 3600, clamp: true })),
};
