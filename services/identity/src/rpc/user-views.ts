// Account rows as the UserView of the contract: the public fields, plus memberships and mfa_enabled (me and
// admin views), plus last_login_at and updated_at (admin view). The one builder of UserView: the account,
// admin and directory services all answer through it.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { MembershipViewSchema, UserViewSchema, type UserView } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { membershipsOf, type AccountRow, type MembershipRow } from "../store/accounts.ts";

export type ViewKind = "public" | "me" | "admin";

/** The columns a view reads; credentials never reach it. */
export type UserViewRow = Omit<AccountRow, "password_hash" | "is_service_account">;

function view(row: UserViewRow, memberships: MembershipRow[], kind: ViewKind): UserView {
  return create(UserViewSchema, {
    id: row.id,
    email: row.email,
    ...(row.full_name === null ? {} : { fullName: row.full_name }),
    isActive: row.is_active,
    isSuperuser: row.is_superuser,
    createdAt: timestampFromDate(row.created_at),
    ...(kind === "public" ? {} : {
      mfaEnabled: row.mfa_enabled,
      memberships: memberships.map((m) => create(MembershipViewSchema, {
        teamId: m.team_id, teamName: m.team_name, teamSlug: m.team_slug,
        ...(m.organization_id === null ? {} : { organizationId: m.organization_id }),
        role: m.role, createdAt: timestampFromDate(m.created_at),
      })),
    }),
    ...(kind === "admin" ? {
      ...(row.last_login_at ? { lastLoginAt: timestampFromDate(row.last_login_at) } : {}),
      updatedAt: timestampFromDate(row.updated_at),
    } : {}),
  });
}

export async function userViews(em: EntityManager, rows: UserViewRow[], kind: ViewKind): Promise<UserView[]> {
  const memberships = kind === "public" ? new Map<string, MembershipRow[]>() : await membershipsOf(em, rows.map((r) => r.id));
  return rows.map((r) => view(r, memberships.get(r.id) ?? [], kind));
}

export async function userView(em: EntityManager, row: UserViewRow, kind: ViewKind): Promise<UserView> {
  return (await userViews(em, [row], kind))[0]!;
}
