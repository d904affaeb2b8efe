// Rows to messages for the directory and API-key services (users answer through user-views.ts).
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ApiKeySchema, type ApiKey } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import { OrganizationSchema, TeamMemberSchema, TeamSchema, type Organization, type Team } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import type { ApiKeyRow } from "../store/api-keys.ts";
import type { OrganizationRow } from "../store/organizations.ts";
import type { TeamMemberRow, TeamRow } from "../store/teams.ts";

const ts = (d: Date | null) => (d ? timestampFromDate(new Date(d)) : undefined);
const opt = (v: string | null) => v ?? undefined;

export function organizationView(r: OrganizationRow): Organization {
  return create(OrganizationSchema, { id: r.id, name: r.name, slug: r.slug, createdAt: ts(r.created_at), updatedAt: ts(r.updated_at) });
}

export function teamView(r: TeamRow, members: readonly TeamMemberRow[]): Team {
  return create(TeamSchema, {
    id: r.id, name: r.name, slug: r.slug, description: opt(r.description), organizationId: opt(r.organization_id),
    parentGroupId: opt(r.parent_group_id), projectCount: 0,
    members: members.map((m) => create(TeamMemberSchema, {
      userId: m.user_id, email: m.email, fullName: opt(m.full_name), role: m.role, createdAt: ts(m.created_at),
    })),
    createdAt: ts(r.created_at), updatedAt: ts(r.updated_at),
  });
}

export function apiKeyView(r: ApiKeyRow): ApiKey {
  return create(ApiKeySchema, {
    id: r.id, name: r.name, scope: r.scope, teamId: opt(r.team_id), projectId: opt(r.project_id),
    organizationId: opt(r.organization_id), permissionBreadth: r.permission_breadth, keyPrefix: r.key_prefix,
    expiresAt: ts(r.expires_at), createdAt: ts(r.created_at), createdByUserId: opt(r.created_by_user_id),
    createdByEmail: opt(r.created_by_email), lastUsedAt: ts(r.last_used_at), revokedAt: ts(r.revoked_at),
    serviceAccountId: opt(r.service_account_id),
  });
}
