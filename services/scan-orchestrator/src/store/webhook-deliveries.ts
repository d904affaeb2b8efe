// webhook_deliveries: the one module that reads or writes it (docs/adr/0005).
import type { EntityManager } from "@mikro-orm/postgresql";
import { WebhookDelivery, type WebhookDeliveryRow } from "./entities/webhook-delivery.ts";

/** The delivery as recorded, or null. */
export async function deliveryOf(
  em: EntityManager,
  key: Pick<WebhookDeliveryRow, "provider" | "deliveryId" | "projectId">,
): Promise<WebhookDeliveryRow | null> {
  return em.findOne(WebhookDelivery, key);
}

/** Records the delivery; false when a concurrent one recorded it first (the insert waits for it to commit). */
export async function recordDelivery(em: EntityManager, row: WebhookDeliveryRow): Promise<boolean> {
  const inserted = await em
    .createQueryBuilder(WebhookDelivery)
    .insert(row)
    .onConflict(["provider", "deliveryId", "projectId"])
    .ignore()
    .execute<{ affectedRows: number }>("run");
  return inserted.affectedRows > 0;
}
