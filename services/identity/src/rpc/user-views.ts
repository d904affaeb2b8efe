// Account rows as the UserView of the contract: the public fields, plus memberships and mfa_enabled (me and
// admin views), plus last_login_at, scan_count and updated_at (admin view). The one builder of UserView: the account,
// admin and directory services all answer through it.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { MembershipViewSchema, UserViewSchema, type UserView } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import type { AccountRow } from "../store/accounts.ts";
import { membershipsOf, type MembershipRow } from "../store/teams.ts";

export type ViewKind = "public" | "me" | "admin";

/** The columns a view reads; credentials never reach it. */
export type UserViewRow = Omit<AccountRow, "passwordHash" | "isServiceAccount">;

function view(row: UserViewRow, memberships: MembershipRow[], kind: ViewKind): UserView {
  return create(UserViewSchema, {
    id: row.id,
    email: row.email,
    ...(row.fullName === null ? {} : { fullName: row.fullName }),
    isActive: row.isActive,
    isSuperuser: row.isSuperuser,
    createdAt: timestampFromDate(row.createdAt),
    ...(kind === "public"
      ? {}
      : {
          mfaEnabled: row.mfaEnabled,
          memberships: memberships.map((m) =>
            create(MembershipViewSchema, {
              teamId: m.teamId,
              teamName: m.teamName,
              teamSlug: m.teamSlug,
              ...(m.organizationId === null ? {} : { organizationId: m.organizationId }),
              role: m.role,
              createdAt: timestampFromDate(m.createdAt),
            }),
          ),
        }),
    ...(kind === "admin"
      ? {
          ...(row.lastLoginAt ? { lastLoginAt: timestampFromDate(row.lastLoginAt) } : {}),
          scanCount: row.scanCount,
          updatedAt: timestampFromDate(row.updatedAt),
        }
      : {}),
  });
}

export async function userViews(em: EntityManager, rows: UserViewRow[], kind: ViewKind): Promise<UserView[]> {
  const memberships =
    kind === "public"
      ? new Map<string, MembershipRow[]>()
      : await membershipsOf(
          em,
          rows.map((r) => r.id),
        );
  return rows.map((r) => view(r, memberships.get(r.id) ?? [], kind));
}

export async function userView(em: EntityManager, row: UserViewRow, kind: ViewKind): Promise<UserView> {
  return (await userViews(em, [row], kind))[0]!;
}
