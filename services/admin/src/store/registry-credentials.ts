// The registry_credentials table: the one module that reads or writes it (docs/adr/0005). Reads never load the
// sealed password (a lazy column).
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { RegistryCredential, type RegistryCredentialRow } from "./entities/registry-credential.ts";

export interface RegistryCredentialWrite {
  organizationId: string;
  registryHost: string;
  username: string;
  passwordSealed: string;
  allowed: boolean;
}

export async function listRegistryCredentials(
  em: EntityManager,
  organizationId: string,
): Promise<RegistryCredentialRow[]> {
  return em.find(RegistryCredential, { organizationId }, { ...SNAPSHOT, orderBy: { registryHost: "asc" } });
}

/** Creates the login of (organization, registry host) or replaces it; answers it and whether it is new. */
export async function putRegistryCredential(
  em: EntityManager,
  w: RegistryCredentialWrite,
): Promise<{ row: RegistryCredentialRow; created: boolean }> {
  const id = randomUUID();
  const rows: unknown = await em
    .createQueryBuilder(RegistryCredential)
    .insert({ id, ...w })
    .onConflict(["organizationId", "registryHost"])
    .merge({ username: w.username, passwordSealed: w.passwordSealed, allowed: w.allowed, updatedAt: new Date() })
    .returning(["id"])
    .execute("all");
  const storedId = (rows as { id: string }[])[0]!.id;
  const row = await em.findOneOrFail(RegistryCredential, { id: storedId }, SNAPSHOT);
  return { row, created: storedId === id };
}

/** Removes the organization's login; false when it has none of that id. */
export async function deleteRegistryCredential(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<boolean> {
  return (await em.nativeDelete(RegistryCredential, { id, organizationId })) > 0;
}

/** The sealed login of (organization, registry host) that pulls may use (`allowed`), or null. */
export async function allowedRegistryLogin(
  em: EntityManager,
  organizationId: string,
  registryHost: string,
): Promise<{ id: string; username: string; passwordSealed: string } | null> {
  const row = await em.findOne(
    RegistryCredential,
    { organizationId, registryHost, allowed: true },
    { ...SNAPSHOT, fields: ["id", "username", "passwordSealed"] },
  );
  return row ? { id: row.id, username: row.username, passwordSealed: row.passwordSealed } : null;
}
