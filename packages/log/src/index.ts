export { createLogger, scrubSecrets } from "./logger.ts";
export type { Logger } from "./logger.ts";
export { requestContext, currentRequestId, withRequestId } from "./request-context.ts";
export { stageClock } from "./stage-clock.ts";
