// Routing rules (the spec's Notification rule): which rules match a notification, what they add, what a valid rule
// is, and who may read and change an organization's or a team's rules. A rule only adds: channels for the default
// recipients, and e-mail addresses; it never takes a recipient or a channel away.
import { isSuperAdmin, type Caller, type Role } from "@sca/rpc";
import { NOTIFICATION_SEVERITIES, type NotificationSeverity } from "@sca/vocabulary";
import { kindSpec, RULE_CHANNELS, severityAtLeast, type RuleChannel } from "./kinds.ts";
import { UUID } from "@sca/ids";

export const MAX_EMAIL_RECIPIENTS = 50;
const MAX_NAME = 200;

export interface RuleFields {
  name: string;
  kinds: string[];
  minSeverity: NotificationSeverity | null;
  channels: RuleChannel[];
  emailRecipients: string[];
  isActive: boolean;
  projectId: string | null;
}

/** What matching needs of a rule, as stored (the table's check keeps min_severity one of NOTIFICATION_SEVERITIES). */
export type RuleMatch = Pick<RuleFields, "kinds" | "isActive" | "projectId" | "emailRecipients"> & {
  minSeverity: string | null;
  channels: readonly string[];
};

/** What matching needs of a notification. */
export interface Matchable {
  kind: string;
  severity: NotificationSeverity | null;
  projectId: string | null;
}

export function ruleMatches(rule: RuleMatch, n: Matchable): boolean {
  if (!rule.isActive) return false;
  if (rule.kinds.length > 0 && !rule.kinds.includes(n.kind)) return false;
  if (rule.minSeverity !== null && !severityAtLeast(n.severity, rule.minSeverity as NotificationSeverity)) return false;
  return rule.projectId === null || rule.projectId === n.projectId;
}

export interface Routing {
  /** Channels the matching rules add (in_app and email for the default recipients; slack, teams). */
  channels: Set<RuleChannel>;
  /** Addresses the matching rules add, lower-cased, each once. */
  emailRecipients: string[];
}

export function routingOf(rules: readonly RuleMatch[], n: Matchable): Routing {
  const channels = new Set<RuleChannel>();
  const addresses = new Set<string>();
  for (const rule of rules) {
    if (!ruleMatches(rule, n)) continue;
    for (const c of rule.channels) if (isRuleChannel(c)) channels.add(c);
    for (const a of rule.emailRecipients) addresses.add(a.toLowerCase());
  }
  return { channels, emailRecipients: [...addresses] };
}

const isRuleChannel = (c: string): c is RuleChannel => (RULE_CHANNELS as readonly string[]).includes(c);

// The WHATWG form's address rule (what a browser's type=email accepts): one @, no spaces, a dotted host.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

export interface RuleInput {
  name: string;
  kinds: readonly string[];
  minSeverity: string | undefined;
  channels: readonly string[];
  emailRecipients: readonly string[];
  isActive: boolean | undefined;
  projectId: string | undefined;
}

export type FieldProblem = { path: string; message: string };

/** A rule as stored, or the problems of the input (field paths under the body). */
export function parseRule(input: RuleInput): { rule: RuleFields } | { problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const name = input.name.trim();
  if (name.length < 1 || name.length > MAX_NAME)
    problems.push({ path: "name", message: `must be 1 to ${MAX_NAME} characters` });
  input.kinds.forEach((k, i) => {
    const spec = kindSpec(k);
    if (!spec || !spec.tunable) problems.push({ path: `kinds.${i}`, message: `not a kind a rule may name: ${k}` });
  });
  const minSeverity = input.minSeverity ?? null;
  if (minSeverity !== null && !(NOTIFICATION_SEVERITIES as readonly string[]).includes(minSeverity))
    problems.push({ path: "min_severity", message: `must be one of ${NOTIFICATION_SEVERITIES.join(", ")}` });
  input.channels.forEach((c, i) => {
    if (!(RULE_CHANNELS as readonly string[]).includes(c))
      problems.push({ path: `channels.${i}`, message: `must be one of ${RULE_CHANNELS.join(", ")}` });
  });
  if (input.emailRecipients.length > MAX_EMAIL_RECIPIENTS)
    problems.push({ path: "email_recipients", message: `at most ${MAX_EMAIL_RECIPIENTS} addresses` });
  input.emailRecipients.forEach((a, i) => {
    if (a.length > 320 || !EMAIL.test(a))
      problems.push({ path: `email_recipients.${i}`, message: "not an e-mail address" });
  });
  if (input.projectId !== undefined && !UUID.test(input.projectId))
    problems.push({ path: "project_id", message: "must be a UUID" });
  if (problems.length > 0) return { problems };
  return {
    rule: {
      name,
      kinds: [...new Set(input.kinds)],
      minSeverity: minSeverity as NotificationSeverity | null,
      channels: [...new Set(input.channels)] as RuleChannel[],
      emailRecipients: [...new Set(input.emailRecipients.map((a) => a.toLowerCase()))],
      isActive: input.isActive ?? true,
      projectId: input.projectId?.toLowerCase() ?? null,
    },
  };
}

const RANK: Record<Role, number> = { super_admin: 5, group_admin: 4, team_admin: 3, developer: 2, viewer: 1 };

/** The caller's effective role on the team (memberships arrive cascaded), or null. */
function roleOnTeam(caller: Caller, teamId: string): Role | null {
  return caller.memberships.find((m) => m.team_id === teamId)?.role ?? null;
}

/** An organization's rules: super_admin, or a member of one of its teams. */
export function mayReadOrganizationRules(caller: Caller, organizationId: string): boolean {
  return isSuperAdmin(caller) || caller.memberships.some((m) => m.organization_id === organizationId);
}

export function mayManageOrganizationRules(caller: Caller): boolean {
  return isSuperAdmin(caller);
}

/** A team's rules (with its organization's): any member of the team, or super_admin. */
export function mayReadTeamRules(caller: Caller, teamId: string): boolean {
  return isSuperAdmin(caller) || roleOnTeam(caller, teamId) !== null;
}

/** team_admin or above on the team (a group_admin's role cascades to it), or super_admin. */
export function mayManageTeamRules(caller: Caller, teamId: string): boolean {
  if (isSuperAdmin(caller)) return true;
  const role = roleOnTeam(caller, teamId);
  return role !== null && RANK[role] >= RANK.team_admin;
}
