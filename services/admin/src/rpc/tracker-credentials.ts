// TrackerCredentialService: an organization's ticket-tracker logins, in the shape of organization-logins.ts. The
// api_token is sealed before it is stored and never answered.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import {
  DeleteTrackerCredentialResponseSchema,
  ListTrackerCredentialsResponseSchema,
  PutTrackerCredentialResponseSchema,
  TrackerCredentialSchema,
  TrackerCredentialService,
  type TrackerCredential,
} from "@sca/proto/sca/admin/v1/tracker_credentials_pb.ts";
import { seal } from "@sca/secret-box";
import { parseTrackerLogin } from "../domain/tracker-credential.ts";
import type { TrackerCredentialRow } from "../store/entities/tracker-credential.ts";
import { trackerCredentials } from "../store/tracker-credentials.ts";
import { organizationLogins } from "./organization-logins.ts";

export interface TrackerCredentialDeps {
  orm: MikroORM;
  /** secretBoxKey(SECRET_KEY, "tracker-token", "sca-admin"). */
  tokenKey: Buffer;
}

function view(r: TrackerCredentialRow): TrackerCredential {
  return create(TrackerCredentialSchema, {
    id: r.id,
    organizationId: r.organizationId,
    host: r.host,
    authScheme: r.authScheme,
    username: r.username,
    createdAt: timestampFromDate(r.createdAt),
    updatedAt: timestampFromDate(r.updatedAt),
  });
}

export function registerTrackerCredentialService(router: ConnectRouter, deps: TrackerCredentialDeps): void {
  const logins = organizationLogins(deps.orm, {
    action: "tracker_credential",
    table: "tracker_credentials",
    noun: "tracker credential",
    parse: parseTrackerLogin,
    write: (organizationId, login) => ({
      organizationId,
      host: login.host,
      authScheme: login.authScheme,
      username: login.username,
      apiTokenSealed: seal(login.apiToken, deps.tokenKey),
    }),
    details: (login) => ({ host: login.host, auth_scheme: login.authScheme }),
    store: trackerCredentials,
  });
  router.service(TrackerCredentialService, {
    async listTrackerCredentials(req, ctx) {
      const rows = await logins.list(ctx, req.organizationId);
      return create(ListTrackerCredentialsResponseSchema, { items: rows.map(view) });
    },

    async putTrackerCredential(req, ctx) {
      const { row, created } = await logins.put(ctx, req.organizationId, {
        host: req.host,
        apiToken: req.apiToken,
        authScheme: req.authScheme,
        username: req.username,
      });
      return create(PutTrackerCredentialResponseSchema, { credential: view(row), created });
    },

    async deleteTrackerCredential(req, ctx) {
      await logins.remove(ctx, req.organizationId, req.credentialId);
      return create(DeleteTrackerCredentialResponseSchema, {});
    },
  });
}
