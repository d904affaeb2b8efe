import { defineEntity, p } from "@mikro-orm/postgresql";

/** A user's role in one group; with GROUP_CASCADE_ENABLED it reaches the group's subgroups too. */
export const Membership = defineEntity({
  name: "Membership",
  tableName: "memberships",
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    groupId: p.uuid(),
    role: p.string().length(32),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ properties: ["userId", "groupId"] }],
});
