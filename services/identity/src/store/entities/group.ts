import { defineEntity, p } from "@mikro-orm/postgresql";

/** A group or team. Groups form a hierarchy through parentGroupId; moving a group moves its subtree. */
export const Group = defineEntity({
  name: "Group",
  tableName: "groups",
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid().nullable(),
    parentGroupId: p.uuid().nullable(),
    name: p.string().length(255),
    slug: p.string().length(64),
    description: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
