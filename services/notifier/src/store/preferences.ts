// The notification_preferences table: the one module that reads or writes it (docs/adr/0005).
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { Channel } from "../domain/kinds.ts";
import type { PreferenceChoice } from "../domain/preferences.ts";
import { NotificationPreference } from "./entities/notification-preference.ts";

/** Each person's stored choices (people without any are absent). */
export async function choicesOf(
  em: EntityManager,
  userIds: readonly string[],
): Promise<Map<string, PreferenceChoice[]>> {
  const byUser = new Map<string, PreferenceChoice[]>();
  if (userIds.length === 0) return byUser;
  const rows = await em.find(NotificationPreference, { userId: { $in: [...new Set(userIds)] } }, SNAPSHOT);
  for (const r of rows) {
    const list = byUser.get(r.userId) ?? [];
    list.push({ kind: r.kind, channel: r.channel as Channel, enabled: r.enabled });
    byUser.set(r.userId, list);
  }
  return byUser;
}

/** Replaces the person's stored choices with `choices`. */
export async function replaceChoices(
  em: EntityManager,
  userId: string,
  choices: readonly PreferenceChoice[],
): Promise<void> {
  await em.nativeDelete(NotificationPreference, { userId });
  if (choices.length === 0) return;
  const now = new Date();
  await em.insertMany(
    NotificationPreference,
    choices.map((c) => ({ userId, kind: c.kind, channel: c.channel, enabled: c.enabled, updatedAt: now })),
  );
}
