import type { DatabaseOptions } from "@sca/db";
import { KnownScanState } from "./entities/known-scan-state.ts";

/** The tables of the scanner-runner schema (the outbox and processed_events come with its Kafka use). */
export const entities: DatabaseOptions["entities"] = [KnownScanState];
