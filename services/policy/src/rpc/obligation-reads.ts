// Reading a project's obligations (ListObligations, GetObligation) and its fulfilments (ListFulfilments).
import { create } from "@bufbuild/protobuf";
import { PROJECT_PAGE_SIZE } from "@sca/paging";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  GetObligationResponseSchema,
  ListFulfilmentsResponseSchema,
  ListObligationsResponseSchema,
} from "@sca/proto/sca/policy/v1/obligations_pb.ts";
import { requireCaller } from "@sca/rpc";
import { parseObligationSort, sortObligations } from "../domain/project-obligations.ts";
import { fulfilmentsOf, listFulfilments } from "../store/obligation-fulfilments.ts";
import type { ObligationDeps, ObligationHandlers } from "./obligation-deps.ts";
import { derive, obligationOf } from "./obligation-derivation.ts";
import { fulfilmentView, obligationView } from "./obligation-views.ts";

function window(limit: number, offset: number): { limit: number; offset: number } {
  const v: FieldViolation[] = [];
  if (limit < 0 || limit > PROJECT_PAGE_SIZE.maxSize)
    v.push({ path: "query.limit", message: `must be between 1 and ${PROJECT_PAGE_SIZE.maxSize}` });
  if (offset < 0) v.push({ path: "query.offset", message: "must be at least 0" });
  if (v.length) throw ProblemError.validation(v);
  return { limit: limit || PROJECT_PAGE_SIZE.defaultSize, offset };
}

export function obligationReadHandlers(
  deps: ObligationDeps,
): ObligationHandlers<"listObligations" | "getObligation" | "listFulfilments"> {
  return {
    async listObligations(req, ctx) {
      const caller = requireCaller(ctx);
      const page = window(req.limit, req.offset);
      const sort = parseObligationSort(req.sort);
      if (!sort.ok)
        throw ProblemError.validation([
          {
            path: "query.sort",
            message: `unknown field ${sort.field}: license, obligation, license_category, component_count, fulfilled`,
          },
        ]);
      const d = await derive(deps, caller, req.projectId);
      const fulfilments = await fulfilmentsOf(
        deps.orm.em.fork(),
        d.projectId,
        d.obligations.map((o) => o.id),
      );
      const all = d.obligations
        .map((o) => ({ ...o, fulfilled: fulfilments.has(o.id) }))
        .filter((o) => req.fulfilled === undefined || o.fulfilled === req.fulfilled);
      const sorted = sortObligations(all, sort.keys);
      return create(ListObligationsResponseSchema, {
        items: sorted
          .slice(page.offset, page.offset + page.limit)
          .map((o) => obligationView(d, o, fulfilments.get(o.id))),
        total: sorted.length,
        truncated: d.summary.truncated,
      });
    },

    async getObligation(req, ctx) {
      const caller = requireCaller(ctx);
      const d = await derive(deps, caller, req.projectId);
      const o = obligationOf(d, req.obligationId);
      const fulfilments = await fulfilmentsOf(deps.orm.em.fork(), d.projectId, [o.id]);
      return create(GetObligationResponseSchema, {
        obligation: obligationView(d, o, fulfilments.get(o.id)),
        expressions: o.expressions.map((e) => ({ expression: e.expression ?? "", componentCount: e.componentCount })),
      });
    },

    async listFulfilments(req, ctx) {
      const caller = requireCaller(ctx);
      const page = window(req.limit, req.offset);
      const d = await derive(deps, caller, req.projectId);
      const derivedIds = new Set(d.obligations.map((o) => o.id));
      const { rows, total } = await listFulfilments(deps.orm.em.fork(), d.projectId, page);
      return create(ListFulfilmentsResponseSchema, {
        items: rows.map((r) => fulfilmentView(r, derivedIds.has(r.obligationId))),
        total,
      });
    },
  };
}
