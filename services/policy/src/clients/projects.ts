// Projects, as approvals and verdicts need them: a project's team, organization, name and slug, and a component of
// its newest snapshot, read from their owner as the caller (re-signed for this hop), so what the caller may not read
// is refused by projects itself. Both refusals (not found, not allowed to read) come back as null: the caller is
// told "not found" either way (existence hiding).
import { Code, ConnectError, createContextValues, type Client } from "@connectrpc/connect";
import { fromConnectError } from "@sca/problem";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { callerTokenKey, createServiceClient, signCallerToken, type Caller } from "@sca/rpc";

export interface ProjectPlacement {
  id: string;
  teamId: string;
  organizationId: string | null;
  name: string;
  slug: string;
}

export interface ComponentIdentity {
  componentId: string;
  name: string;
  purl: string | null;
}

export interface Projects {
  project(caller: Caller, projectId: string): Promise<ProjectPlacement | null>;
  /** The component (by its identity across scans) in the project's newest snapshot, or null. */
  component(caller: Caller, projectId: string, componentId: string): Promise<ComponentIdentity | null>;
}

async function refusedAsNull<T>(call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ConnectError && (err.code === Code.NotFound || err.code === Code.PermissionDenied)) return null;
    throw err instanceof ConnectError ? fromConnectError(err) : err;
  }
}

export function projectsService(url: string, secretKey: string): Projects {
  const projects: Client<typeof ProjectService> = createServiceClient(ProjectService, url, { timeoutMs: 5_000 });
  const inventory: Client<typeof InventoryService> = createServiceClient(InventoryService, url, { timeoutMs: 5_000 });
  const as = async (caller: Caller) => ({
    contextValues: createContextValues().set(callerTokenKey, await signCallerToken(caller, secretKey)),
  });
  return {
    async project(caller, projectId) {
      const options = await as(caller);
      const answer = await refusedAsNull(() => projects.getProject({ projectId }, options));
      const p = answer?.project;
      if (!p) return null;
      return { id: p.id, teamId: p.teamId, organizationId: p.organizationId ?? null, name: p.name, slug: p.slug };
    },
    async component(caller, projectId, componentId) {
      const options = await as(caller);
      const answer = await refusedAsNull(() => inventory.getComponent({ projectId, componentId }, options));
      const c = answer?.component;
      if (!c) return null;
      return { componentId: c.componentId, name: c.name, purl: c.purl ?? null };
    },
  };
}
