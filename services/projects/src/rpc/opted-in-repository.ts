// The repository a project is opted in with (docs/scm.md, "App credentials"), reached as its app installation, and
// the one answer to a failing host: 502 remote_write_failed with the host's status only.
import type { EntityManager } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import { open } from "@sca/secret-box";
import { SourceHostError, type RepositoryApi, type SourceHost } from "../clients/source-host.ts";
import { optedInInstallation } from "../store/source-host-apps.ts";

export interface OptedInDeps {
  host: SourceHost;
  /** The key app private keys are sealed with (SourceHostAppService's). */
  appSecretKey: Buffer;
}

/** 502 with the host's status only, never its body or a token. */
export function remoteFailed(err: SourceHostError): ProblemError {
  return new ProblemError({
    status: 502,
    code: "remote_write_failed",
    detail: `${err.message}.`,
    extensions: { remote_status: err.status },
  });
}

/** Runs a host call, turning its failure into the 502. */
export async function remote<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof SourceHostError) throw remoteFailed(err);
    throw err;
  }
}

/** The project's opted-in repository; null without one; a failing host's SourceHostError as it is. */
export async function installedRepository(
  em: EntityManager,
  deps: OptedInDeps,
  projectId: string,
): Promise<RepositoryApi | null> {
  const target = await optedInInstallation(em, projectId);
  if (!target) return null;
  return deps.host.repository(
    {
      credentialId: target.credential.id,
      appId: target.credential.appId,
      privateKeyPem: open(target.credential.privateKeySealed, deps.appSecretKey),
      installationId: target.installation.installationId,
    },
    target.installation.repositoryFullName!,
  );
}

/** The project's opted-in repository; 409 not_opted_in without one. */
export async function optedInRepository(
  em: EntityManager,
  deps: OptedInDeps,
  projectId: string,
): Promise<RepositoryApi> {
  const repo = await remote(() => installedRepository(em, deps, projectId));
  if (!repo)
    throw new ProblemError({
      status: 409,
      code: "not_opted_in",
      detail: "The project is linked to no live app installation with a repository.",
    });
  return repo;
}
