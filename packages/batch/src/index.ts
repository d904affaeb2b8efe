export { BATCH_MAX_ROWS, summarizeBatch } from "./batch-summary.ts";
export type { BatchSummary } from "./batch-summary.ts";
