// Projects, as the scan-orchestrator needs them: a project's existence, team, name, slug and archived state, read
// from their owner at the moment a scan or an upload is asked for (docs/scans.md, "Who may create scans"). The call
// is made as the caller (re-signed for this hop), so what the caller may not read is refused by projects itself:
// existence hiding stays the owner's decision, and its 404 or 403 reaches the caller unchanged.
import { Code, ConnectError, createContextValues, type Client } from "@connectrpc/connect";
import { fromConnectError } from "@sca/problem";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { callerTokenKey, createServiceClient, signCallerToken, type Caller } from "@sca/rpc";

export interface ProjectFacts {
  id: string;
  teamId: string;
  name: string;
  slug: string;
  archived: boolean;
}

/** The project, or `hidden` when projects refused it (no such project, or not readable by the caller). */
export type ProjectAnswer = { found: true; project: ProjectFacts } | { found: false; status: 403 | 404 };

export interface Projects {
  /** Throws the owner's problem for anything but an answer or a refusal (e.g. projects unavailable: 503). */
  project(caller: Caller, projectId: string): Promise<ProjectAnswer>;
}

export function projectsService(url: string, secretKey: string): Projects {
  const client: Client<typeof ProjectService> = createServiceClient(ProjectService, url, { timeoutMs: 5_000 });
  return {
    async project(caller, projectId) {
      const token = await signCallerToken(caller, secretKey);
      try {
        const { project } = await client.getProject(
          { projectId },
          { contextValues: createContextValues().set(callerTokenKey, token) },
        );
        return {
          found: true,
          project: {
            id: project!.id,
            teamId: project!.teamId,
            name: project!.name,
            slug: project!.slug,
            archived: project!.archivedAt !== undefined,
          },
        };
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.NotFound) return { found: false, status: 404 };
        if (err instanceof ConnectError && err.code === Code.PermissionDenied) return { found: false, status: 403 };
        throw err instanceof ConnectError ? fromConnectError(err) : err;
      }
    },
  };
}
