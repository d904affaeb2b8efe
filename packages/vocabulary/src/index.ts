// Closed word lists that several services and the gateway share: words only, never the rules about them.
export { VEX_JUSTIFICATIONS, VEX_RESPONSES, VEX_STATES } from "./vex.ts";
export type { VexJustification, VexResponse, VexState } from "./vex.ts";
export { FINDING_SEVERITIES, NOTIFICATION_SEVERITIES } from "./severity.ts";
export type { FindingSeverity, NotificationSeverity } from "./severity.ts";
