// The project a get, update or archive names, as the spec's Projects table answers: 404 when it does not exist,
// 403 when the caller may not read it or may read but not change it.
import { ProblemError } from "@sca/problem";
import type { Caller } from "@sca/rpc";
import type { Decision, ProjectScope } from "../domain/project-access.ts";
import { isUuid } from "../domain/project-fields.ts";
import { projectById, type ProjectRow } from "../store/projects.ts";
import type { ProjectServiceDeps } from "./project-deps.ts";

export const projectNotFound = () => ProblemError.notFound("No such project.");
const notReadable = () => ProblemError.forbidden("You are not a member of this project's team.");

/** The project, or 404 when there is none; 403 when `allowed` refuses the caller. */
export async function readableProject(
  deps: Pick<ProjectServiceDeps, "orm">,
  caller: Caller,
  id: string,
  allowed: (caller: Caller, p: ProjectScope) => boolean,
): Promise<ProjectRow> {
  if (!isUuid(id)) throw projectNotFound();
  const row = await projectById(deps.orm.em.fork(), id.toLowerCase());
  if (!row) throw projectNotFound();
  if (!allowed(caller, row)) throw notReadable();
  return row;
}

/** Throws the refusal of a change decision. */
export function enforce(decision: Decision, detail: string): void {
  if (!decision.ok) throw ProblemError.forbidden(detail);
}
