// The two severity scales the API shows. What each severity weighs, ranks or allows (scores, sort keys, SLA windows,
// routing) is the owning service's rule, not written here.

/** A vulnerability finding's (and a component's worst) severity, most severe first; projects owns the findings. */
export const FINDING_SEVERITIES = ["critical", "high", "medium", "low", "info", "unknown"] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

/** A notification's severity, least severe first: a routing rule's min_severity matches it and those after it. */
export const NOTIFICATION_SEVERITIES = ["info", "low", "medium", "high", "critical"] as const;
export type NotificationSeverity = (typeof NOTIFICATION_SEVERITIES)[number];
