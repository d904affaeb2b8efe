import type { DatabaseOptions } from "@sca/db";
import { Scan } from "./entities/scan.ts";
import { ScanUpload } from "./entities/scan-upload.ts";
import { WebhookDelivery } from "./entities/webhook-delivery.ts";

/** The tables of the scan-orchestrator schema. */
export const entities: DatabaseOptions["entities"] = [ScanUpload, Scan, WebhookDelivery];
