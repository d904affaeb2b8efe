// What the team and organization-default policies (license, gate) share: the team a request names after the
// caller's right to it, and the upsert and delete of a scope's policy. A change runs in one transaction on the locked
// row with its audit event and the kind's changed event (through the outbox); an upsert that changes nothing writes
// and emits nothing.
import { randomUUID } from "node:crypto";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import type { Person } from "@sca/rpc";
import type { Directory, TeamPlacement } from "../clients/directory.ts";
import type { TeamDecision } from "../domain/policy-access.ts";
import { emitAudit } from "../events/policy-events.ts";
import type { PolicyScope } from "../store/license-policies.ts";
import { UUID } from "@sca/ids";

export const noSuchTeam = () => ProblemError.notFound("No such team, or you are not a member of it.");

export function enforce(decision: TeamDecision, refusal: string): void {
  if (decision === "not_found") throw noSuchTeam();
  if (decision === "forbidden") throw ProblemError.forbidden(refusal);
}

/** The team the request names, after the caller's right to it: 404 for a malformed id, an unknown team, a stranger. */
export async function teamFor(
  directory: Directory,
  caller: Person,
  teamId: string,
  decide: (c: Person, teamId: string) => TeamDecision,
  refusal: string,
): Promise<TeamPlacement> {
  if (!UUID.test(teamId)) throw noSuchTeam();
  const id = teamId.toLowerCase();
  enforce(decide(caller, id), refusal);
  const team = await directory.team(caller, id);
  if (!team) throw noSuchTeam();
  return team;
}

/** A stored policy row as the writes below need it; `Org` is what its organization column may hold. */
interface ScopedPolicyRow<Org extends string | null> {
  id: string;
  organizationId: Org;
}

/** One kind of scoped policy: its table, audit actions, store calls and changed event. */
export interface ScopedPolicyKind<Row extends ScopedPolicyRow<Org>, Columns, Org extends string | null> {
  /** The audit events' target table. */
  targetTable: string;
  /** The audit actions' prefix: `gate_policy` gives gate_policy.created / .updated / .deleted. */
  action: string;
  lock(em: EntityManager, scope: PolicyScope): Promise<Row | null>;
  insert(
    em: EntityManager,
    row: Columns & {
      id: string;
      organizationId: Org;
      teamId: string | null;
      createdByUserId: string;
      updatedByUserId: string;
      createdAt: Date;
    },
  ): Promise<Row>;
  update(
    em: EntityManager,
    current: Row,
    columns: Columns & { organizationId: Org; updatedByUserId: string; updatedAt: Date },
  ): Promise<Row>;
  remove(em: EntityManager, id: string): Promise<void>;
  /** The API names of the fields `columns` would change. */
  changedFields(current: Row, columns: Columns): string[];
  /** What the created and updated audit events add to their details (never a sensitive value). */
  createdDetails(row: Row): Record<string, string>;
  updatedDetails(row: Row, fields: string[]): Record<string, string>;
  /** The kind's changed event, for the row as it now stands (null: deleted). */
  emitChanged(
    em: EntityManager,
    row: Row | null,
    scope: { organizationId: Org; teamId: string | null },
    at: Date,
  ): void;
}

export interface ScopedPolicyDeps {
  orm: MikroORM;
  /** Publishes the events a change just committed without waiting for the relay's next poll. */
  wakeRelay(): void;
}

/** Inserts or updates the policy of `scope`; a race between two first upserts is retried once as an update. */
export async function upsertScopedPolicy<Row extends ScopedPolicyRow<Org>, Columns, Org extends string | null>(
  deps: ScopedPolicyDeps,
  kind: ScopedPolicyKind<Row, Columns, Org>,
  caller: Person,
  scope: PolicyScope,
  organizationId: Org,
  columns: Columns,
): Promise<{ row: Row; created: boolean }> {
  const attempt = () =>
    deps.orm.em.fork().transactional(async (em: EntityManager) => {
      const now = new Date();
      const current = await kind.lock(em, scope);
      const teamId = scope.kind === "team" ? scope.teamId : null;
      const audit = (action: string, details: Record<string, string>, targetId: string) =>
        emitAudit(em, {
          action: `${kind.action}.${action}`,
          actor: callerActor(caller),
          targetTable: kind.targetTable,
          targetId,
          teamId,
          organizationId,
          outcome: "success",
          at: now,
          details: { scope: scope.kind, ...details },
        });
      if (!current) {
        const row = await kind.insert(em, {
          id: randomUUID(),
          organizationId,
          teamId,
          ...columns,
          createdByUserId: caller.user_id,
          updatedByUserId: caller.user_id,
          createdAt: now,
        });
        audit("created", kind.createdDetails(row), row.id);
        kind.emitChanged(em, row, { organizationId, teamId }, now);
        return { row, created: true };
      }
      const fields = kind.changedFields(current, columns);
      if (fields.length === 0 && current.organizationId === organizationId) return { row: current, created: false };
      const row = await kind.update(em, current, {
        ...columns,
        organizationId,
        updatedByUserId: caller.user_id,
        updatedAt: now,
      });
      audit("updated", kind.updatedDetails(row, fields), row.id);
      kind.emitChanged(em, row, { organizationId, teamId }, now);
      return { row, created: false };
    });
  let answer;
  try {
    answer = await attempt();
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    answer = await attempt();
  }
  deps.wakeRelay();
  return answer;
}

/** Deletes the team's own policy; false when it had none. */
export async function deleteTeamPolicy<Row extends ScopedPolicyRow<Org>, Columns, Org extends string | null>(
  deps: ScopedPolicyDeps,
  kind: ScopedPolicyKind<Row, Columns, Org>,
  caller: Person,
  team: { id: string; organizationId: Org },
): Promise<boolean> {
  const deleted = await deps.orm.em.fork().transactional(async (em) => {
    const current = await kind.lock(em, { kind: "team", teamId: team.id });
    if (!current) return false;
    const now = new Date();
    await kind.remove(em, current.id);
    emitAudit(em, {
      action: `${kind.action}.deleted`,
      actor: callerActor(caller),
      targetTable: kind.targetTable,
      targetId: current.id,
      teamId: team.id,
      organizationId: team.organizationId,
      outcome: "success",
      at: now,
      details: { scope: "team" },
    });
    kind.emitChanged(em, null, { organizationId: team.organizationId, teamId: team.id }, now);
    return true;
  });
  if (deleted) deps.wakeRelay();
  return deleted;
}
