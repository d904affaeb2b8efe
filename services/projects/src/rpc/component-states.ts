// ComponentStateService: the scanner-runner's enrichment states (end of life, currency, malicious) recorded on an
// ingested scan's components in one write (docs/inventory.md, "Component states"). Only the scanner-runner calls it.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  ComponentStateService,
  RecordComponentStatesResponseSchema,
} from "@sca/proto/sca/projects/v1/component_states_pb.ts";
import { requireService } from "@sca/rpc";
import { checkedComponentStates } from "../domain/component-states.ts";
import { isUuid } from "../domain/project-fields.ts";
import { writeComponentStates } from "../store/component-states.ts";
import { snapshotProject } from "../store/vulnerability-matches.ts";
import { MATCH_CALLER } from "./vulnerability-matches.ts";

export function registerComponentStateService(router: ConnectRouter, deps: { orm: MikroORM }): void {
  router.service(ComponentStateService, {
    async recordComponentStates(req, ctx: HandlerContext) {
      requireService(ctx, MATCH_CALLER);
      const v: FieldViolation[] = [];
      if (!isUuid(req.scanId)) v.push({ path: "scan_id", message: "must be a UUID" });
      if (!isUuid(req.projectId)) v.push({ path: "project_id", message: "must be a UUID" });
      const states = checkedComponentStates(req.states, v);
      if (v.length) throw ProblemError.validation(v);
      const scanId = req.scanId.toLowerCase();
      const projectId = req.projectId.toLowerCase();
      const updated = await deps.orm.em.fork().transactional(async (em) => {
        if ((await snapshotProject(em, scanId)) !== projectId)
          throw ProblemError.notFound("No inventory of this scan of this project was ingested.");
        return writeComponentStates(em, scanId, states);
      });
      return create(RecordComponentStatesResponseSchema, { updated });
    },
  });
}
