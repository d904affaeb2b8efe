// The directory's organizations: the page of them, oldest first.
import { create } from "@bufbuild/protobuf";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ListOrganizationsResponseSchema } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { listOrganizations } from "../store/organizations.ts";
import type { DirectoryHandlers, DirectoryServiceDeps } from "./directory-deps.ts";
import { organizationView } from "./directory-views.ts";

export function organizationHandlers(deps: DirectoryServiceDeps): DirectoryHandlers<"listOrganizations"> {
  const fork = () => deps.orm.em.fork();
  return {
    async listOrganizations(req, ctx) {
      requireSuperAdmin(ctx);
      const p = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const { rows, total } = await listOrganizations(fork(), p.limit, p.offset);
      return create(ListOrganizationsResponseSchema, { items: rows.map(organizationView), page: pageInfo(p, total) });
    },
  };
}
