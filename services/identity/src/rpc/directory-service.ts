// DirectoryService: the admin surface over organizations, teams, memberships and roles. super_admin only;
// any other caller is told NotFound, as the spec wants for /v1/admin/**. This file registers; the use cases
// live in directory-organizations.ts, directory-teams.ts, directory-members.ts and directory-users.ts.
import type { ConnectRouter } from "@connectrpc/connect";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import type { DirectoryServiceDeps } from "./directory-deps.ts";
import { teamMemberHandlers } from "./directory-members.ts";
import { organizationHandlers } from "./directory-organizations.ts";
import { teamHandlers } from "./directory-teams.ts";
import { directoryUserHandlers } from "./directory-users.ts";

export type { DirectoryServiceDeps } from "./directory-deps.ts";

export function registerDirectoryService(router: ConnectRouter, deps: DirectoryServiceDeps): void {
  router.service(DirectoryService, {
    ...organizationHandlers(deps),
    ...teamHandlers(deps),
    ...teamMemberHandlers(deps),
    ...directoryUserHandlers(deps),
  });
}
