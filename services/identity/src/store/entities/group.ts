import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import { Organization } from "./organization.ts";

/** A group or team. Groups form a hierarchy through parentGroupId; moving a group moves its subtree. */
export const Group = defineEntity({
  name: "Group",
  tableName: "groups",
  properties: {
    id: p.uuid().primary(),
    organizationId: p
      .manyToOne(Organization)
      .mapToPk()
      .fieldName("organization_id")
      .strictNullable()
      .deleteRule("restrict"),
    // A getter: the entity refers to itself.
    parentGroupId: () =>
      p.manyToOne(Group).mapToPk().fieldName("parent_group_id").strictNullable().deleteRule("restrict"),
    name: p.string().length(255),
    slug: p.string().length(64),
    description: p.text().strictNullable(),
    createdAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  // A slug is unique within its organization; teams without one share the nil organization.
  uniques: [
    {
      name: "groups_org_slug",
      expression: `create unique index groups_org_slug on groups (coalesce(organization_id, '00000000-0000-0000-0000-000000000000'::uuid), slug)`,
    },
  ],
  indexes: [{ name: "groups_parent", properties: ["parentGroupId"] }],
  checks: [{ name: "groups_check", expression: "parent_group_id is null or parent_group_id <> id" }],
});

export type GroupRow = InferEntity<typeof Group>;
