import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A repository-webhook delivery that started a scan (docs/scm.md, "Redeliveries"): written in the transaction that
 * queues the scan, so a redelivery of the same id for the same project finds it and starts nothing.
 */
export const WebhookDelivery = defineEntity({
  name: "WebhookDelivery",
  tableName: "webhook_deliveries",
  properties: {
    provider: p.string().length(16).primary(),
    deliveryId: p.string().length(128).primary(),
    projectId: p.uuid().primary(),
    scanId: p.uuid(),
    receivedAt: p.datetime(),
  },
  indexes: [{ name: "webhook_deliveries_received", properties: ["receivedAt"] }],
});

export type WebhookDeliveryRow = InferEntity<typeof WebhookDelivery>;
