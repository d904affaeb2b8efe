// sca.identity.v1.AdminUserService: the super_admin's view of accounts. Everyone else gets 404, as if the
// routes did not exist. The role change belongs to the directory (DirectoryService).
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { EntityManager } from "@mikro-orm/postgresql";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ProblemError } from "@sca/problem";
import {
  ActivateUserResponseSchema,
  AdminUserService,
  ClearSecondFactorResponseSchema,
  DeactivateUserResponseSchema,
  GetUserResponseSchema,
  IssuePasswordResetResponseSchema,
  ListUsersResponseSchema,
  UnlockSignInResponseSchema,
  type ListUsersRequest,
} from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { callerActor } from "@sca/audit";
import { emitAudit } from "../events/account-events.ts";
import {
  accountById,
  listAccounts,
  lockSuperAdmins,
  setActive,
  setMfaEnabled,
  type AccountRow,
} from "../store/accounts.ts";
import { heldKeyPrefixes } from "../store/api-keys.ts";
import { revokeAllOfUser } from "../store/refresh-tokens.ts";
import { deleteSecondFactor } from "../store/second-factors.ts";
import { clearThrottle } from "../store/sign-in-throttles.ts";
import type { ApiKeyAnswerCache } from "../store/api-key-answer-cache.ts";
import type { AccountDeps } from "./account-deps.ts";
import { issuePasswordReset } from "./password-reset.ts";
import { refuseRemovingLastSuperAdmin } from "./super-admins.ts";
import { userView, userViews } from "./user-views.ts";
import { isUuid } from "./fields.ts";

const Q_MAX = 200;

async function target(em: EntityManager, userId: string): Promise<AccountRow> {
  const account = isUuid(userId) ? await accountById(em, userId) : null;
  if (!account) throw ProblemError.notFound("No such user.");
  return account;
}

export interface AdminUserDeps extends AccountDeps {
  /** Deactivating a person drops the gateway's cached answers for the keys they hold. */
  apiKeyAnswers: ApiKeyAnswerCache;
}

export function registerAdminUserService(router: ConnectRouter, deps: AdminUserDeps): void {
  /** Runs an administrator's change to one account in a transaction and audits it. */
  const change = <T>(
    ctx: HandlerContext,
    userId: string,
    action: string,
    work: (em: EntityManager, account: AccountRow, now: Date) => Promise<T>,
  ) => {
    const caller = requireSuperAdmin(ctx);
    const now = new Date();
    return deps.orm.em.fork().transactional(async (em) => {
      const account = await target(em, userId);
      const result = await work(em, account, now);
      emitAudit(em, { action, actor: callerActor(caller), targetId: account.id, outcome: "success", at: now });
      return result;
    });
  };

  router.service(AdminUserService, {
    async listUsers(req: ListUsersRequest, ctx) {
      requireSuperAdmin(ctx);
      const page = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const q = req.q.trim();
      if (q.length > Q_MAX)
        throw ProblemError.validation([{ path: "query.q", message: `must be at most ${Q_MAX} characters` }]);
      const em = deps.orm.em.fork();
      const { rows, total } = await listAccounts(
        em,
        {
          q,
          ...(req.isActive === undefined ? {} : { isActive: req.isActive }),
          ...(req.isSuperuser === undefined ? {} : { isSuperuser: req.isSuperuser }),
          ...(req.mfaEnabled === undefined ? {} : { mfaEnabled: req.mfaEnabled }),
        },
        page.limit,
        page.offset,
      );
      return create(ListUsersResponseSchema, {
        items: await userViews(em, rows, "admin"),
        page: pageInfo(page, total),
      });
    },

    async getUser(req, ctx) {
      requireSuperAdmin(ctx);
      const em = deps.orm.em.fork();
      return create(GetUserResponseSchema, { user: await userView(em, await target(em, req.userId), "admin") });
    },

    async deactivateUser(req, ctx) {
      let heldKeys: string[] = [];
      const user = await change(ctx, req.userId, "user.deactivated", async (em, account, now) => {
        if (account.isSuperuser && account.isActive) {
          await lockSuperAdmins(em);
          await refuseRemovingLastSuperAdmin(em);
        }
        await revokeAllOfUser(em, account.id, now);
        heldKeys = await heldKeyPrefixes(em, account.id);
        return userView(em, (await setActive(em, account.id, false))!, "admin");
      });
      // The holder's keys stop working on the very next request, not when the gateway's cached answer expires.
      await deps.apiKeyAnswers.forget(heldKeys);
      await deps.accessAnswers.forgetAll();
      return create(DeactivateUserResponseSchema, { user });
    },

    async activateUser(req, ctx) {
      const user = await change(ctx, req.userId, "user.activated", async (em, account) =>
        userView(em, (await setActive(em, account.id, true))!, "admin"),
      );
      await deps.accessAnswers.forgetAll();
      return create(ActivateUserResponseSchema, { user });
    },

    async issuePasswordReset(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const now = new Date();
      await deps.orm.em.fork().transactional(async (em) => {
        const account = await target(em, req.userId);
        await issuePasswordReset(em, deps, account, callerActor(caller), "admin", now);
      });
      return create(IssuePasswordResetResponseSchema);
    },

    async unlockSignIn(req, ctx) {
      await change(ctx, req.userId, "user.sign_in_unlocked", (em, account) => clearThrottle(em, account.email));
      return create(UnlockSignInResponseSchema);
    },

    async clearSecondFactor(req, ctx) {
      await change(ctx, req.userId, "user.mfa_cleared", async (em, account) => {
        await deleteSecondFactor(em, account.id);
        await setMfaEnabled(em, account.id, false);
      });
      return create(ClearSecondFactorResponseSchema);
    },
  });
}
