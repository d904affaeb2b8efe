import { defineEntity, p } from "@mikro-orm/postgresql";

export const Organization = defineEntity({
  name: "Organization",
  tableName: "organizations",
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(255),
    slug: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
