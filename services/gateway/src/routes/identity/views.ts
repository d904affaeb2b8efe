// Identity's messages as the spec's JSON resources (snake_case, ISO 8601 UTC times, null for absent), each with
// the zod schema that documents it and strips whatever it does not declare.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { UserView } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import type { ApiKey } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import type { Organization, Team } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import type { LinkedIdentity } from "@sca/proto/sca/identity/v1/sso_pb.ts";

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);
const time = () => z.iso.datetime();
const id = () => z.uuid();

const MEMBERSHIP_ROLES = ["group_admin", "team_admin", "developer", "viewer"] as const;

export const organizationSchema = z
  .object({
    id: id(),
    name: z.string(),
    slug: z.string(),
    created_at: time(),
    updated_at: time(),
  })
  .meta({ id: "Organization" });

export function organizationJson(o: Organization): z.input<typeof organizationSchema> {
  return { id: o.id, name: o.name, slug: o.slug, created_at: iso(o.createdAt)!, updated_at: iso(o.updatedAt)! };
}

const teamMemberSchema = z
  .object({
    user_id: id(),
    email: z.string(),
    full_name: z.string().nullable(),
    role: z.enum(MEMBERSHIP_ROLES),
    created_at: time(),
  })
  .meta({ id: "TeamMember" });

export const teamSchema = z
  .object({
    id: id(),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    organization_id: id().nullable(),
    parent_group_id: id().nullable(),
    project_count: z.number().int(),
    members: z.array(teamMemberSchema).meta({ description: "Direct members, oldest first" }),
    created_at: time(),
    updated_at: time(),
  })
  .meta({ id: "Team" });

export function teamJson(t: Team): z.input<typeof teamSchema> {
  return {
    id: t.id,
    name: t.name,
    slug: t.slug,
    description: t.description ?? null,
    organization_id: t.organizationId ?? null,
    parent_group_id: t.parentGroupId ?? null,
    project_count: t.projectCount,
    members: t.members.map((m) => ({
      user_id: m.userId,
      email: m.email,
      full_name: m.fullName ?? null,
      role: m.role as (typeof MEMBERSHIP_ROLES)[number],
      created_at: iso(m.createdAt)!,
    })),
    created_at: iso(t.createdAt)!,
    updated_at: iso(t.updatedAt)!,
  };
}

/** The admin view of a user (what a role change or a new service account answers). */
export const adminUserSchema = z.object({
  id: id(),
  email: z.string(),
  full_name: z.string().nullable(),
  is_active: z.boolean(),
  is_superuser: z.boolean(),
  mfa_enabled: z.boolean(),
  memberships: z.array(
    z.object({
      team_id: id(),
      team_name: z.string(),
      team_slug: z.string(),
      organization_id: id().nullable(),
      role: z.enum(MEMBERSHIP_ROLES),
      created_at: time(),
    }),
  ),
  last_login_at: time().nullable(),
  scan_count: z.number().int(),
  created_at: time(),
  updated_at: time().nullable(),
});

export function adminUserJson(u: UserView): z.input<typeof adminUserSchema> {
  return {
    id: u.id,
    email: u.email,
    full_name: u.fullName ?? null,
    is_active: u.isActive,
    is_superuser: u.isSuperuser,
    mfa_enabled: u.mfaEnabled,
    memberships: u.memberships.map((m) => ({
      team_id: m.teamId,
      team_name: m.teamName,
      team_slug: m.teamSlug,
      organization_id: m.organizationId ?? null,
      role: m.role as (typeof MEMBERSHIP_ROLES)[number],
      created_at: iso(m.createdAt)!,
    })),
    last_login_at: iso(u.lastLoginAt),
    scan_count: u.scanCount,
    created_at: iso(u.createdAt)!,
    updated_at: iso(u.updatedAt),
  };
}

export const apiKeySchema = z
  .object({
    id: id(),
    name: z.string(),
    scope: z.enum(["org", "team", "project"]),
    organization_id: id().nullable(),
    team_id: id().nullable(),
    project_id: id().nullable(),
    permission_breadth: z.enum(["read_only", "read_write"]),
    key_prefix: z
      .string()
      .meta({ description: "The <prefix> of tos_<prefix>_<secret>; the secret is never shown again" }),
    service_account_id: id()
      .nullable()
      .meta({ description: "The holder when the key was issued to a service account" }),
    expires_at: time().nullable(),
    created_at: time(),
    created_by_user_id: id().nullable(),
    created_by_email: z.string().nullable(),
    last_used_at: time().nullable(),
    revoked_at: time().nullable(),
  })
  .meta({ id: "ApiKey" });

export function apiKeyJson(k: ApiKey): z.input<typeof apiKeySchema> {
  return {
    id: k.id,
    name: k.name,
    scope: k.scope as "org" | "team" | "project",
    organization_id: k.organizationId ?? null,
    team_id: k.teamId ?? null,
    project_id: k.projectId ?? null,
    permission_breadth: k.permissionBreadth as "read_only" | "read_write",
    key_prefix: k.keyPrefix,
    service_account_id: k.serviceAccountId ?? null,
    expires_at: iso(k.expiresAt),
    created_at: iso(k.createdAt)!,
    created_by_user_id: k.createdByUserId ?? null,
    created_by_email: k.createdByEmail ?? null,
    last_used_at: iso(k.lastUsedAt),
    revoked_at: iso(k.revokedAt),
  };
}

export const linkedIdentitySchema = z
  .object({
    id: id(),
    provider: z.string().meta({ description: "idp_a, idp_b or oidc" }),
    subject: z.string().meta({ description: "The person's identifier at the provider" }),
    email: z.string().nullable().meta({ description: "The provider's e-mail address at the latest sign-in" }),
    created_at: time(),
    last_used_at: time().nullable(),
  })
  .meta({ id: "LinkedIdentity" });

export function linkedIdentityJson(i: LinkedIdentity): z.input<typeof linkedIdentitySchema> {
  return {
    id: i.id,
    provider: i.provider,
    subject: i.subject,
    email: i.email ?? null,
    created_at: iso(i.createdAt)!,
    last_used_at: iso(i.lastUsedAt),
  };
}
