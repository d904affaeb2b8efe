// The tracker_credentials table: the one module that reads or writes it (docs/adr/0005). Reads never load the
// sealed token (a lazy column) except `sealedTokenOf`, for the code that will call the tracker.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { TrackerCredential, type TrackerCredentialRow } from "./entities/tracker-credential.ts";

export interface TrackerCredentialWrite {
  organizationId: string;
  host: string;
  authScheme: string;
  username: string;
  apiTokenSealed: string;
}

export async function listTrackerCredentials(
  em: EntityManager,
  organizationId: string,
): Promise<TrackerCredentialRow[]> {
  return em.find(TrackerCredential, { organizationId }, { ...SNAPSHOT, orderBy: { host: "asc" } });
}

/** Creates the login of (organization, host) or replaces its username, scheme and token; answers it and whether new. */
export async function putTrackerCredential(
  em: EntityManager,
  w: TrackerCredentialWrite,
): Promise<{ row: TrackerCredentialRow; created: boolean }> {
  const id = randomUUID();
  const rows: unknown = await em
    .createQueryBuilder(TrackerCredential)
    .insert({ id, ...w })
    .onConflict(["organizationId", "host"])
    .merge({ authScheme: w.authScheme, username: w.username, apiTokenSealed: w.apiTokenSealed, updatedAt: new Date() })
    .returning(["id"])
    .execute("all");
  const storedId = (rows as { id: string }[])[0]!.id;
  const row = await em.findOneOrFail(TrackerCredential, { id: storedId }, SNAPSHOT);
  return { row, created: storedId === id };
}

/** Removes the organization's login; false when it has none of that id. */
export async function deleteTrackerCredential(em: EntityManager, organizationId: string, id: string): Promise<boolean> {
  return (await em.nativeDelete(TrackerCredential, { id, organizationId })) > 0;
}

/** The sealed token of the organization's login for `host`, or null. */
export async function sealedTokenOf(em: EntityManager, organizationId: string, host: string): Promise<string | null> {
  const row = await em.findOne(
    TrackerCredential,
    { organizationId, host },
    { ...SNAPSHOT, populate: ["apiTokenSealed"] },
  );
  return row?.apiTokenSealed ?? null;
}
