// Projects' GateFactsService, as the build gate needs it: the project's team and organization, and the aggregate
// facts of its latest succeeded scan. Asked as the caller (re-signed for this hop), so projects decides whether the
// caller may read the project: NotFound passes through as the gate's 404.
import { createContextValues, type Client } from "@connectrpc/connect";
import { GateFactsService, type GetGateFactsResponse } from "@sca/proto/sca/projects/v1/gate_facts_pb.ts";
import { callerTokenKey, createServiceClient, signCallerToken, type Caller } from "@sca/rpc";
import { GateSubjectHints, type GateSubject } from "./gate-subject-hints.ts";

export interface GateFactsQuery {
  epssThreshold: number | null;
  reachableCriticalOnly: boolean;
  itemLimit: number;
}

export interface ProjectGateFacts {
  subject(caller: Caller, projectId: string): Promise<GateSubject>;
  facts(caller: Caller, projectId: string, query: GateFactsQuery): Promise<GetGateFactsResponse>;
  /** The subject projects last answered for the project (a hint to verify against the facts' own), or null. */
  hintedSubject(projectId: string): GateSubject | null;
}

/** The subject the facts came with; null from a projects that does not send it yet (then the caller's stands). */
export function subjectOfFacts(projectId: string, answer: GetGateFactsResponse): GateSubject | null {
  if (!answer.teamId) return null;
  return { projectId, teamId: answer.teamId, organizationId: answer.organizationId ?? null };
}

export function projectGateFacts(url: string, secretKey: string): ProjectGateFacts {
  const client: Client<typeof GateFactsService> = createServiceClient(GateFactsService, url, { timeoutMs: 10_000 });
  const hints = new GateSubjectHints();
  const as = async (caller: Caller) => ({
    contextValues: createContextValues().set(callerTokenKey, await signCallerToken(caller, secretKey)),
  });
  return {
    async subject(caller, projectId) {
      const answer = await client.getGateSubject({ projectId }, await as(caller));
      const subject = {
        projectId: answer.projectId,
        teamId: answer.teamId,
        organizationId: answer.organizationId ?? null,
      };
      hints.remember(subject);
      return subject;
    },
    hintedSubject: (projectId) => hints.get(projectId),
    async facts(caller, projectId, query) {
      const answer = await client.getGateFacts(
        {
          projectId,
          ...(query.epssThreshold === null ? {} : { epssThreshold: query.epssThreshold }),
          reachableCriticalOnly: query.reachableCriticalOnly,
          itemLimit: query.itemLimit,
        },
        await as(caller),
      );
      const subject = subjectOfFacts(projectId, answer);
      if (subject) hints.remember(subject);
      return answer;
    },
  };
}
