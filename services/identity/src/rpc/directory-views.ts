// Rows to messages for the directory and API-key services (users answer through user-views.ts).
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ApiKeySchema, type ApiKey } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import {
  OrganizationSchema,
  TeamMemberSchema,
  TeamSchema,
  type Organization,
  type Team,
} from "@sca/proto/sca/identity/v1/directory_pb.ts";
import type { ApiKeyRow } from "../store/api-keys.ts";
import type { OrganizationRow } from "../store/organizations.ts";
import type { TeamMemberRow, TeamRow } from "../store/teams.ts";

const ts = (d: Date | null) => (d ? timestampFromDate(d) : undefined);
const opt = (v: string | null) => v ?? undefined;

export function organizationView(r: OrganizationRow): Organization {
  return create(OrganizationSchema, {
    id: r.id,
    name: r.name,
    slug: r.slug,
    createdAt: ts(r.createdAt),
    updatedAt: ts(r.updatedAt),
  });
}

/** `projectCount`: the team's active projects, from identity's copy of projects' events. */
export function teamView(r: TeamRow, members: readonly TeamMemberRow[], projectCount = 0): Team {
  return create(TeamSchema, {
    id: r.id,
    name: r.name,
    slug: r.slug,
    description: opt(r.description),
    organizationId: opt(r.organizationId),
    parentGroupId: opt(r.parentGroupId),
    projectCount,
    members: members.map((m) =>
      create(TeamMemberSchema, {
        userId: m.userId,
        email: m.email,
        fullName: opt(m.fullName),
        role: m.role,
        createdAt: ts(m.createdAt),
      }),
    ),
    createdAt: ts(r.createdAt),
    updatedAt: ts(r.updatedAt),
  });
}

export function apiKeyView(r: ApiKeyRow): ApiKey {
  return create(ApiKeySchema, {
    id: r.id,
    name: r.name,
    scope: r.scope,
    teamId: opt(r.teamId),
    projectId: opt(r.projectId),
    organizationId: opt(r.organizationId),
    permissionBreadth: r.permissionBreadth,
    keyPrefix: r.keyPrefix,
    expiresAt: ts(r.expiresAt),
    createdAt: ts(r.createdAt),
    createdByUserId: opt(r.createdByUserId),
    createdByEmail: opt(r.createdByEmail),
    lastUsedAt: ts(r.lastUsedAt),
    revokedAt: ts(r.revokedAt),
    serviceAccountId: opt(r.serviceAccountId),
  });
}
