// GetCloneSource: where the scanner-runner clones a project from for a source scan, with the git credential
// unsealed. The one answer that carries the credential, so it is for the scanner-runner's service caller only.
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { ProblemError } from "@sca/problem";
import { GetCloneSourceResponseSchema, type GetCloneSourceRequest } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { requireService } from "@sca/rpc";
import { open } from "@sca/secret-box";
import { isUuid } from "../domain/project-fields.ts";
import { projectById, sealedGitCredential } from "../store/projects.ts";
import type { InventoryHandlers, InventoryServiceDeps } from "./inventory-deps.ts";
import { INGEST_CALLER } from "./inventory-ingest.ts";

export function inventoryCloneSourceHandlers(deps: InventoryServiceDeps): InventoryHandlers<"getCloneSource"> {
  return {
    async getCloneSource(req: GetCloneSourceRequest, ctx: HandlerContext) {
      requireService(ctx, INGEST_CALLER);
      if (!isUuid(req.projectId)) throw ProblemError.validation([{ path: "project_id", message: "must be a UUID" }]);
      const em = deps.orm.em.fork();
      const project = await projectById(em, req.projectId.toLowerCase());
      if (!project) throw ProblemError.notFound("No such project.");
      const sealed = await sealedGitCredential(em, project.id);
      return create(GetCloneSourceResponseSchema, {
        gitUrl: project.gitUrl ?? undefined,
        defaultBranch: project.defaultBranch ?? undefined,
        gitCredential: sealed === null ? undefined : open(sealed, deps.credentialKey),
      });
    },
  };
}
