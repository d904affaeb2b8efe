import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

export const Organization = defineEntity({
  name: "Organization",
  tableName: "organizations",
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(255),
    slug: p.string().length(64),
    createdAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  uniques: [{ name: "organizations_slug_key", properties: ["slug"] }],
});

export type OrganizationRow = InferEntity<typeof Organization>;
