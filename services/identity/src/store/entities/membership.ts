import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import { Group } from "./group.ts";
import { User } from "./user.ts";

/** A user's role in one group; with GROUP_CASCADE_ENABLED it reaches the group's subgroups too. */
export const Membership = defineEntity({
  name: "Membership",
  tableName: "memberships",
  properties: {
    id: p.uuid().primary(),
    userId: p.manyToOne(User).mapToPk().fieldName("user_id").deleteRule("cascade"),
    groupId: p.manyToOne(Group).mapToPk().fieldName("group_id").deleteRule("cascade"),
    role: p.string().length(32),
    createdAt: p.datetime().defaultRaw("now()"),
  },
  uniques: [{ name: "memberships_user_id_group_id_key", properties: ["userId", "groupId"] }],
  indexes: [{ name: "memberships_group", properties: ["groupId"] }],
  checks: [
    { name: "memberships_role_check", expression: "role in ('group_admin', 'team_admin', 'developer', 'viewer')" },
  ],
});

export type MembershipRow = InferEntity<typeof Membership>;
