// The registry_credentials table: the one module that reads or writes it (docs/adr/0005), in the shape of
// organization-logins.ts. Reads never load the sealed password (a lazy column) except the allowed login a pull uses.
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { RegistryCredential, type RegistryCredentialRow } from "./entities/registry-credential.ts";
import { organizationLoginTable } from "./organization-logins.ts";

export interface RegistryCredentialWrite {
  organizationId: string;
  registryHost: string;
  username: string;
  passwordSealed: string;
  allowed: boolean;
}

export const registryCredentials = organizationLoginTable<
  RegistryCredentialRow,
  RegistryCredentialWrite,
  "registryHost"
>(RegistryCredential, "registryHost");

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
