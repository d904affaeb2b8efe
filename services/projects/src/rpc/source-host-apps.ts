// SourceHostAppService (docs/scm.md, "App credentials"): a team's source-host apps, registered with a write-only
// private key and webhook secret (sealed, never answered), listed, fetched, revoked (soft), and their installations
// listed and linked to a project of the team and a repository. Writes take team_admin of the credential's team
// (or super_admin), reads any member; a credential outside the caller's teams is 404.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { NUMBERED_PAGE_SIZE, pageOf } from "@sca/paging";
import { ProblemError } from "@sca/problem";
import {
  AppCredentialSchema,
  AppInstallationSchema,
  GetAppCredentialResponseSchema,
  LinkInstallationResponseSchema,
  ListAppCredentialsResponseSchema,
  ListInstallationsResponseSchema,
  RegisterAppCredentialResponseSchema,
  RevokeAppCredentialResponseSchema,
  SourceHostAppService,
} from "@sca/proto/sca/projects/v1/source_host_apps_pb.ts";
import { isSuperAdmin, requireCaller, type Caller } from "@sca/rpc";
import { seal } from "@sca/secret-box";
import { rsaPrivateKey } from "../clients/source-host.ts";
import { roleAtLeast, roleOnTeam } from "../domain/project-access.ts";
import { isUuid } from "../domain/project-fields.ts";
import { isRepositoryFullName } from "../domain/remediation-pull-requests.ts";
import { emitAudit } from "../events/project-events.ts";
import type { AppCredentialRow, AppInstallationRow } from "../store/entities/source-host.ts";
import { projectById } from "../store/projects.ts";
import {
  appCredentialById,
  appCredentialsOf,
  insertAppCredential,
  installationsOf,
  linkInstallation,
  revokeAppCredential,
} from "../store/source-host-apps.ts";

export interface SourceHostAppDeps {
  orm: MikroORM;
  /** The key app private keys and webhook secrets are sealed with (@sca/secret-box, purpose scm-app-secret). */
  appSecretKey: Buffer;
  wakeRelay(): void;
}

const ADMIN_ONLY = "A team's source-host apps are managed by the team_admin role on it.";
const notFound = () => ProblemError.notFound("No such app credential.");

const isMember = (caller: Caller, teamId: string) => isSuperAdmin(caller) || roleOnTeam(caller, teamId) !== null;
const isAdmin = (caller: Caller, teamId: string) => {
  if (isSuperAdmin(caller)) return true;
  const role = roleOnTeam(caller, teamId);
  return role !== null && roleAtLeast(role, "team_admin");
};

/** 1..64 characters, no control characters: the spec's bounds of app_id and installation_id. */
const isShortId = (value: string) =>
  value.length >= 1 && value.length <= 64 && [...value].every((c) => c.charCodeAt(0) > 0x1f && c !== "\u007f");

function credentialMessage(row: AppCredentialRow) {
  return create(AppCredentialSchema, {
    id: row.id,
    teamId: row.teamId,
    appId: row.appId,
    ...(row.appSlug === null ? {} : { appSlug: row.appSlug }),
    hasPrivateKey: true,
    hasWebhookSecret: row.webhookSecretSealed !== null,
    ...(row.createdByUserId === null ? {} : { createdByUserId: row.createdByUserId }),
    createdAt: timestampFromDate(row.createdAt),
    updatedAt: timestampFromDate(row.updatedAt),
    ...(row.revokedAt === null ? {} : { revokedAt: timestampFromDate(row.revokedAt) }),
  });
}

function installationMessage(row: AppInstallationRow) {
  return create(AppInstallationSchema, {
    appCredentialId: row.appCredentialId,
    installationId: row.installationId,
    ...(row.accountLogin === null ? {} : { accountLogin: row.accountLogin }),
    ...(row.projectId === null ? {} : { projectId: row.projectId }),
    ...(row.repositoryFullName === null ? {} : { repositoryFullName: row.repositoryFullName }),
    createdAt: timestampFromDate(row.createdAt),
    updatedAt: timestampFromDate(row.updatedAt),
  });
}

export function registerSourceHostAppService(router: ConnectRouter, deps: SourceHostAppDeps): void {
  /** The credential the caller's teams hold; 404 otherwise; 403 when `admin` and the caller is not team_admin. */
  async function visibleCredential(caller: Caller, id: string, admin: boolean): Promise<AppCredentialRow> {
    if (!isUuid(id)) throw notFound();
    const row = await appCredentialById(deps.orm.em.fork(), id.toLowerCase());
    if (!row || !isMember(caller, row.teamId)) throw notFound();
    if (admin && !isAdmin(caller, row.teamId)) throw ProblemError.forbidden(ADMIN_ONLY);
    return row;
  }

  function audit(em: Parameters<typeof emitAudit>[0], caller: Caller, action: string, row: AppCredentialRow, at: Date) {
    emitAudit(em, {
      action,
      actor: callerActor(caller),
      targetId: row.id,
      teamId: row.teamId,
      organizationId: null,
      outcome: "success",
      at,
      details: { app_id: row.appId },
    });
  }

  router.service(SourceHostAppService, {
    async registerAppCredential(req, ctx) {
      const caller = requireCaller(ctx);
      const violations = [];
      if (!isUuid(req.teamId)) violations.push({ path: "query.team_id", message: "must be a team id" });
      if (!isShortId(req.appId)) violations.push({ path: "body.app_id", message: "must be 1 to 64 characters" });
      if (!rsaPrivateKey(req.privateKey))
        violations.push({ path: "body.private_key", message: "must be an RSA private key in PEM" });
      if (req.webhookSecret !== undefined && req.webhookSecret.length === 0)
        violations.push({ path: "body.webhook_secret", message: "must not be empty" });
      if (violations.length) throw ProblemError.validation(violations);
      const teamId = req.teamId.toLowerCase();
      if (!isAdmin(caller, teamId)) throw ProblemError.forbidden(ADMIN_ONLY);
      const now = new Date();
      const row: AppCredentialRow = {
        id: randomUUID(),
        teamId,
        appId: req.appId,
        appSlug: req.appSlug || null,
        privateKeySealed: seal(req.privateKey, deps.appSecretKey),
        webhookSecretSealed: req.webhookSecret === undefined ? null : seal(req.webhookSecret, deps.appSecretKey),
        createdByUserId: caller.user_id ?? null,
        createdAt: now,
        updatedAt: now,
        revokedAt: null,
      };
      await deps.orm.em.fork().transactional(async (em) => {
        await insertAppCredential(em, row);
        audit(em, caller, "scm.app_credential_registered", row, now);
      });
      deps.wakeRelay();
      return create(RegisterAppCredentialResponseSchema, { credential: credentialMessage(row) });
    },

    async listAppCredentials(req, ctx) {
      const caller = requireCaller(ctx);
      const page = pageOf({ page: req.page, pageSize: req.pageSize }, NUMBERED_PAGE_SIZE);
      let teams: string[] | null;
      if (req.teamId !== undefined) {
        if (!isUuid(req.teamId)) throw ProblemError.validation([{ path: "query.team_id", message: "must be a uuid" }]);
        if (!isMember(caller, req.teamId.toLowerCase()))
          throw ProblemError.forbidden("You are not a member of this team.");
        teams = [req.teamId.toLowerCase()];
      } else teams = isSuperAdmin(caller) ? null : caller.memberships.map((m) => m.team_id);
      const { items, total } = await appCredentialsOf(deps.orm.em.fork(), teams, req.includeRevoked, page);
      return create(ListAppCredentialsResponseSchema, { items: items.map(credentialMessage), total: BigInt(total) });
    },

    async getAppCredential(req, ctx) {
      const row = await visibleCredential(requireCaller(ctx), req.id, false);
      return create(GetAppCredentialResponseSchema, { credential: credentialMessage(row) });
    },

    async revokeAppCredential(req, ctx) {
      const caller = requireCaller(ctx);
      const row = await visibleCredential(caller, req.id, true);
      const answer = (r: AppCredentialRow) =>
        create(RevokeAppCredentialResponseSchema, { credential: credentialMessage(r) });
      if (row.revokedAt) return answer(row);
      const now = new Date();
      await deps.orm.em.fork().transactional(async (em) => {
        await revokeAppCredential(em, row.id, now);
        audit(em, caller, "scm.app_credential_revoked", row, now);
      });
      deps.wakeRelay();
      return answer({ ...row, revokedAt: now, updatedAt: now });
    },

    async listInstallations(req, ctx) {
      const row = await visibleCredential(requireCaller(ctx), req.appCredentialId, false);
      const page = pageOf({ page: req.page, pageSize: req.pageSize }, NUMBERED_PAGE_SIZE);
      const { items, total } = await installationsOf(deps.orm.em.fork(), row.id, page);
      return create(ListInstallationsResponseSchema, { items: items.map(installationMessage), total: BigInt(total) });
    },

    async linkInstallation(req, ctx) {
      const caller = requireCaller(ctx);
      const credential = await visibleCredential(caller, req.appCredentialId, true);
      const violations = [];
      if (!isShortId(req.installationId))
        violations.push({ path: "body.installation_id", message: "must be 1 to 64 characters" });
      if (req.projectId !== undefined && !isUuid(req.projectId))
        violations.push({ path: "body.project_id", message: "must be a project id" });
      if (req.repositoryFullName !== undefined && !isRepositoryFullName(req.repositoryFullName))
        violations.push({ path: "body.repository_full_name", message: "must be owner/name" });
      if (violations.length) throw ProblemError.validation(violations);
      if (credential.revokedAt)
        throw new ProblemError({
          status: 409,
          code: "app_credential_revoked",
          detail: "The app credential is revoked.",
        });
      const projectId = req.projectId?.toLowerCase() ?? null;
      if (projectId) {
        const project = await projectById(deps.orm.em.fork(), projectId);
        if (!project || project.teamId !== credential.teamId)
          throw ProblemError.validation([{ path: "body.project_id", message: "must be a project of the app's team" }]);
      }
      const now = new Date();
      const linked = await deps.orm.em.fork().transactional(async (em) => {
        const row = await linkInstallation(em, {
          appCredentialId: credential.id,
          installationId: req.installationId,
          accountLogin: req.accountLogin || null,
          projectId,
          repositoryFullName: req.repositoryFullName ?? null,
          createdAt: now,
          updatedAt: now,
        });
        audit(em, caller, "scm.app_installation_linked", credential, now);
        return row;
      });
      deps.wakeRelay();
      return create(LinkInstallationResponseSchema, { installation: installationMessage(linked) });
    },
  });
}
