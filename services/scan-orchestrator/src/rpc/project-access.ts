// A project as the scan handlers see it: its existence, team and archived state come from projects, asked as the
// caller, whose 404 or 403 is the answer (the owner hides what it hides); starting a scan or uploading takes
// developer+ on the project's team, reading its scans (and releases) membership of that team.
import { ProblemError } from "@sca/problem";
import type { Caller } from "@sca/rpc";
import type { ProjectFacts } from "../clients/projects.ts";
import { isUuid } from "../domain/batch.ts";
import { mayCreateScan, mayReadScan } from "../domain/scan-access.ts";
import type { ScanServiceDeps } from "./scan-deps.ts";

const noProject = (status: 403 | 404) =>
  status === 404
    ? ProblemError.notFound("No such project.")
    : new ProblemError({ status: 403, code: "forbidden", detail: "You may not use this project." });

const notWriter = () =>
  new ProblemError({
    status: 403,
    code: "forbidden",
    detail: "Starting scans and uploading for a project takes the developer role (or above) on its team.",
  });

/** A project id of a request path: 404 when it is not a UUID (it names nothing), as for an unknown one. */
export function projectPathId(value: string): string {
  if (!isUuid(value)) throw ProblemError.notFound("No such project.");
  return value.toLowerCase();
}

export interface ProjectAccess {
  /** The project, which the caller may write to and which is not archived. */
  writable(caller: Caller, projectId: string): Promise<ProjectFacts>;
  /** The project of a path id when the caller may read its scans (and releases): its team's members. */
  ofScanReader(caller: Caller, projectPathIdRaw: string): Promise<ProjectFacts>;
}

export function projectAccess(deps: Pick<ScanServiceDeps, "projects">): ProjectAccess {
  /** The project as its owner answers the caller; refused with the owner's status. */
  async function readable(caller: Caller, projectId: string): Promise<ProjectFacts> {
    const answer = await deps.projects.project(caller, projectId);
    if (!answer.found) throw noProject(answer.status);
    return answer.project;
  }

  return {
    async writable(caller, projectId) {
      const project = await readable(caller, projectId);
      if (!mayCreateScan(caller, { teamId: project.teamId, projectId: project.id })) throw notWriter();
      if (project.archived)
        throw new ProblemError({ status: 409, code: "project_archived", detail: "The project is archived." });
      return project;
    },

    async ofScanReader(caller, projectPathIdRaw) {
      const project = await readable(caller, projectPathId(projectPathIdRaw));
      // Scans are read by the project's team; a reader of an organization-visible project from another team is not.
      if (!mayReadScan(caller, { teamId: project.teamId, projectId: project.id }))
        throw new ProblemError({
          status: 403,
          code: "forbidden",
          detail: "A project's scans are read by the members of its team.",
        });
      return project;
    },
  };
}
