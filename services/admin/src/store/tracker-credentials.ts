// The tracker_credentials table: the one module that reads or writes it (docs/adr/0005), in the shape of
// organization-logins.ts. Reads never load the sealed token (a lazy column) except `sealedTokenOf`, for the code
// that will call the tracker.
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { TrackerCredential, type TrackerCredentialRow } from "./entities/tracker-credential.ts";
import { organizationLoginTable } from "./organization-logins.ts";

export interface TrackerCredentialWrite {
  organizationId: string;
  host: string;
  authScheme: string;
  username: string;
  apiTokenSealed: string;
}

export const trackerCredentials = organizationLoginTable<TrackerCredentialRow, TrackerCredentialWrite, "host">(
  TrackerCredential,
  "host",
);

/** The sealed token of the organization's login for `host`, or null. */
export async function sealedTokenOf(em: EntityManager, organizationId: string, host: string): Promise<string | null> {
  const row = await em.findOne(
    TrackerCredential,
    { organizationId, host },
    { ...SNAPSHOT, populate: ["apiTokenSealed"] },
  );
  return row?.apiTokenSealed ?? null;
}
