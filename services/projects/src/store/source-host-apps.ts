// scm_app_credentials and scm_app_installations: the one module that reads or writes them (docs/adr/0005).
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import {
  AppCredential,
  AppInstallation,
  type AppCredentialRow,
  type AppInstallationRow,
} from "./entities/source-host.ts";

export async function appCredentialById(em: EntityManager, id: string): Promise<AppCredentialRow | null> {
  return em.findOne(AppCredential, { id }, SNAPSHOT);
}

export async function insertAppCredential(em: EntityManager, row: AppCredentialRow): Promise<void> {
  await em.insert(AppCredential, row);
}

/** A page of the teams' credentials, newest first. */
export async function appCredentialsOf(
  em: EntityManager,
  teamIds: string[] | null,
  includeRevoked: boolean,
  page: { offset: number; limit: number },
): Promise<{ items: AppCredentialRow[]; total: number }> {
  const where = {
    ...(teamIds === null ? {} : { teamId: { $in: teamIds } }),
    ...(includeRevoked ? {} : { revokedAt: null }),
  };
  const [items, total] = await em.findAndCount(AppCredential, where, {
    ...SNAPSHOT,
    orderBy: { createdAt: "desc", id: "desc" },
    ...page,
  });
  return { items, total };
}

export async function revokeAppCredential(em: EntityManager, id: string, at: Date): Promise<void> {
  await em.nativeUpdate(AppCredential, { id, revokedAt: null }, { revokedAt: at, updatedAt: at });
}

export async function installationsOf(
  em: EntityManager,
  appCredentialId: string,
  page: { offset: number; limit: number },
): Promise<{ items: AppInstallationRow[]; total: number }> {
  const [items, total] = await em.findAndCount(
    AppInstallation,
    { appCredentialId },
    { ...SNAPSHOT, orderBy: { createdAt: "desc", installationId: "asc" }, ...page },
  );
  return { items, total };
}

/**
 * Creates or updates the installation; when it names a project, that project is first unlinked from every other
 * installation (a project has one opted-in installation).
 */
export async function linkInstallation(em: EntityManager, row: AppInstallationRow): Promise<AppInstallationRow> {
  if (row.projectId)
    await em.nativeUpdate(
      AppInstallation,
      {
        projectId: row.projectId,
        $not: { appCredentialId: row.appCredentialId, installationId: row.installationId },
      },
      { projectId: null, updatedAt: row.updatedAt },
    );
  const held = await em.findOne(AppInstallation, {
    appCredentialId: row.appCredentialId,
    installationId: row.installationId,
  });
  if (!held) {
    await em.insert(AppInstallation, row);
    return row;
  }
  await em.nativeUpdate(
    AppInstallation,
    { appCredentialId: row.appCredentialId, installationId: row.installationId },
    {
      accountLogin: row.accountLogin,
      projectId: row.projectId,
      repositoryFullName: row.repositoryFullName,
      updatedAt: row.updatedAt,
    },
  );
  return { ...row, createdAt: held.createdAt };
}

export interface OptedInInstallation {
  installation: AppInstallationRow;
  credential: AppCredentialRow;
}

/** The project's installation with a repository, of a credential not revoked: what opts it in; null otherwise. */
export async function optedInInstallation(em: EntityManager, projectId: string): Promise<OptedInInstallation | null> {
  const linked = await em.find(AppInstallation, { projectId, repositoryFullName: { $ne: null } }, SNAPSHOT);
  if (linked.length === 0) return null;
  const credentials = await em.find(
    AppCredential,
    { id: { $in: linked.map((l) => l.appCredentialId) }, revokedAt: null },
    SNAPSHOT,
  );
  const live = new Map(credentials.map((c) => [c.id, c]));
  const installation = linked.find((l) => live.has(l.appCredentialId));
  return installation ? { installation, credential: live.get(installation.appCredentialId)! } : null;
}
