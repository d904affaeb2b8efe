// The notification_rules table: the one module that reads or writes it (docs/adr/0005).
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { RuleFields } from "../domain/routing-rules.ts";
import { NotificationRule, type NotificationRuleRow } from "./entities/notification-rule.ts";

export async function insertRule(
  em: EntityManager,
  owner: { organizationId: string | null; teamId: string | null },
  fields: RuleFields,
): Promise<NotificationRuleRow> {
  const row = em.create(NotificationRule, {
    id: randomUUID(),
    ...owner,
    ...fields,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  await em.flush();
  return row;
}

const OLDEST_FIRST = { orderBy: { createdAt: "asc", id: "asc" } } as const;

/** An organization's own rules (not its teams'), oldest first. */
export async function organizationRules(em: EntityManager, organizationId: string): Promise<NotificationRuleRow[]> {
  return em.find(NotificationRule, { organizationId, teamId: null }, { ...SNAPSHOT, ...OLDEST_FIRST });
}

/** A team's own rules, oldest first. */
export async function teamRules(em: EntityManager, teamId: string): Promise<NotificationRuleRow[]> {
  return em.find(NotificationRule, { teamId }, { ...SNAPSHOT, ...OLDEST_FIRST });
}

/** The active rules that may match a team's notification: its organization's and its own. */
export async function activeRulesFor(
  em: EntityManager,
  organizationId: string | null,
  teamId: string | null,
): Promise<NotificationRuleRow[]> {
  const owners = [...(organizationId ? [{ organizationId, teamId: null }] : []), ...(teamId ? [{ teamId }] : [])];
  if (owners.length === 0) return [];
  return em.find(NotificationRule, { isActive: true, $or: owners }, { ...SNAPSHOT, ...OLDEST_FIRST });
}

export async function findRule(em: EntityManager, id: string): Promise<NotificationRuleRow | null> {
  return em.findOne(NotificationRule, { id }, SNAPSHOT);
}

export async function deleteRule(em: EntityManager, id: string): Promise<void> {
  await em.nativeDelete(NotificationRule, { id });
}
