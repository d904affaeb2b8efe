// Reading projects: one (GetProject), a page of the caller's (ListProjects), or every matching row (ExportProjects,
// the CSV): the list and the export share one filter, one scope and one order, so the CSV holds the list's rows.
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { pageInfo, pageOf, pageSizeRule } from "@sca/paging";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  ExportProjectsResponseSchema,
  GetProjectResponseSchema,
  ListProjectsResponseSchema,
  type ExportProjectsRequest,
  type GetProjectRequest,
  type ListProjectsRequest,
  type ProjectFilter as FilterMessage,
} from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { requireCaller } from "@sca/rpc";
import { listScope, mayRead } from "../domain/project-access.ts";
import { DISTRIBUTION_MODEL_UNSET, DISTRIBUTION_MODELS, isUuid } from "../domain/project-fields.ts";
import { exportProjects, listProjects, type ProjectFilter } from "../store/projects.ts";
import type { ProjectHandlers, ProjectServiceDeps } from "./project-deps.ts";
import { projectViews } from "./project-views.ts";
import { readableProject } from "./project-lookup.ts";

/** The list's page rule (the spec's numbered `size` shape: 20 by default, at most 100). */
export const PROJECT_PAGE_SIZE = pageSizeRule({ defaultSize: 20, maxSize: 100 });
const EXPORT_CHUNK = 500;
const Q_MAX = 255;

function filterOf(f: FilterMessage | undefined): ProjectFilter {
  const v: FieldViolation[] = [];
  if (f?.teamId !== undefined && !isUuid(f.teamId)) v.push({ path: "query.team_id", message: "must be a UUID" });
  if (f?.q !== undefined && [...f.q].length > Q_MAX)
    v.push({ path: "query.q", message: `must be at most ${Q_MAX} characters` });
  const model = f?.distributionModel;
  if (
    model !== undefined &&
    model !== DISTRIBUTION_MODEL_UNSET &&
    !(DISTRIBUTION_MODELS as readonly string[]).includes(model)
  ) {
    v.push({
      path: "query.distribution_model",
      message: `must be one of ${[...DISTRIBUTION_MODELS, DISTRIBUTION_MODEL_UNSET].join(", ")}`,
    });
  }
  if (v.length) throw ProblemError.validation(v);
  return {
    includeArchived: f?.includeArchived ?? false,
    ...(f?.teamId !== undefined ? { teamId: f.teamId.toLowerCase() } : {}),
    ...(f?.q ? { q: f.q } : {}),
    ...(f?.businessUnit !== undefined ? { businessUnit: f.businessUnit } : {}),
    ...(model !== undefined ? { distributionModel: model } : {}),
  };
}

export function projectReadHandlers(
  deps: ProjectServiceDeps,
): ProjectHandlers<"getProject" | "listProjects" | "exportProjects"> {
  return {
    async getProject(req: GetProjectRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const row = await readableProject(deps, caller, req.projectId, mayRead);
      const [project] = await projectViews(deps.directory, caller, [row]);
      return create(GetProjectResponseSchema, { project });
    },

    async listProjects(req: ListProjectsRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const filter = filterOf(req.filter);
      const page = pageOf(req.page, PROJECT_PAGE_SIZE, { page: "query.page", pageSize: "query.size" });
      const { rows, total } = await listProjects(
        deps.orm.em.fork(),
        listScope(caller),
        filter,
        page.limit,
        page.offset,
      );
      return create(ListProjectsResponseSchema, {
        items: await projectViews(deps.directory, caller, rows),
        page: pageInfo(page, total),
      });
    },

    async *exportProjects(req: ExportProjectsRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const filter = filterOf(req.filter);
      for await (const rows of exportProjects(deps.orm.em.fork(), listScope(caller), filter, EXPORT_CHUNK)) {
        if (ctx.signal.aborted) return;
        yield create(ExportProjectsResponseSchema, { items: await projectViews(deps.directory, caller, rows) });
      }
    },
  };
}
