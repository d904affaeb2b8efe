// A project's obligations now: derived at read time from the licenses of its newest snapshot (projects counts them
// in SQL, answering as the caller may read the project) under the policy in force for its team.
import { ProblemError } from "@sca/problem";
import type { SummariseProjectLicensesResponse } from "@sca/proto/sca/projects/v1/license_inventory_pb.ts";
import type { Caller } from "@sca/rpc";
import { UUID } from "@sca/ids";
import {
  AI_USAGE_CONTEXTS,
  DISTRIBUTION_MODELS,
  type AiUsageContext,
  type DistributionModel,
  type UseContext,
} from "../domain/license-catalog.ts";
import { CATALOG_ONLY } from "../domain/license-policy.ts";
import { deriveObligations, type ProjectObligation } from "../domain/project-obligations.ts";
import { policyInForce } from "./license-policy-service.ts";
import { rulesOf } from "./license-policy-views.ts";
import type { ObligationDeps } from "./obligation-deps.ts";

export const noSuchObligation = () => ProblemError.notFound("The project has no such obligation.");

function oneOf<T extends string>(values: readonly T[], value: string | undefined): T | null {
  return value !== undefined && (values as readonly string[]).includes(value) ? (value as T) : null;
}

export interface Derived {
  summary: SummariseProjectLicensesResponse;
  projectId: string;
  teamId: string;
  organizationId: string | null;
  obligations: ProjectObligation[];
}

/** The project (as the caller may read it; projects answers 404 otherwise) and its obligations now. */
export async function derive(deps: ObligationDeps, caller: Caller, projectId: string): Promise<Derived> {
  if (!UUID.test(projectId)) throw ProblemError.notFound("No such project.");
  const summary = await deps.inventory.summarise(caller, projectId.toLowerCase());
  const project = summary.project!;
  const organizationId = project.organizationId ?? null;
  const inForce = await policyInForce(deps.orm.em.fork(), { id: project.teamId, organizationId });
  // A stored value the catalog does not know is judged as unset (every way), the cautious reading.
  const use: UseContext = {
    distributionModel: oneOf<DistributionModel>(DISTRIBUTION_MODELS, project.distributionModel),
    aiUsageContext: oneOf<AiUsageContext>(AI_USAGE_CONTEXTS, project.aiUsageContext),
  };
  const obligations = deriveObligations(
    project.id,
    summary.expressions.map((e) => ({ expression: e.expression || null, componentCount: e.componentCount })),
    inForce ? rulesOf(inForce) : CATALOG_ONLY,
    use,
    new Date(),
  );
  return { summary, projectId: project.id, teamId: project.teamId, organizationId, obligations };
}

/** The derived obligation a path id names, or 404. */
export function obligationOf(d: Derived, obligationId: string): ProjectObligation {
  const o = UUID.test(obligationId) ? d.obligations.find((x) => x.id === obligationId.toLowerCase()) : undefined;
  if (!o) throw noSuchObligation();
  return o;
}
