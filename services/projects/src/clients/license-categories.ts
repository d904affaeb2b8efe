// Policy's LicensePolicyService.CategoriseLicenses, as projects needs it: the license_category of components of a
// project under the policy in force for its team and its use. Called as the projects service (no person behind a
// re-categorisation), in chunks of the contract's per-call maximum.
import { createContextValues, type Client } from "@connectrpc/connect";
import { LicensePolicyService } from "@sca/proto/sca/policy/v1/license_policies_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";

/** The contract's maximum per call (policy's CATEGORISE_MAX_COMPONENTS). */
export const CATEGORISE_CHUNK = 10_000;

export interface ProjectUse {
  teamId: string;
  distributionModel: string | null;
  aiUsageContext: string | null;
}

export interface LicenseCategories {
  /** One category per component, in order; `signal` ends the asking early. */
  categorise(
    use: ProjectUse,
    components: { license: string | null; purl: string | null }[],
    signal?: AbortSignal,
  ): Promise<string[]>;
}

export function policyLicenseCategories(url: string, secretKey: string): LicenseCategories {
  const client: Client<typeof LicensePolicyService> = createServiceClient(LicensePolicyService, url, {
    timeoutMs: 30_000,
  });
  return {
    async categorise(use, components, signal) {
      const categories: string[] = [];
      for (let at = 0; at < components.length; at += CATEGORISE_CHUNK) {
        const token = await serviceCallerToken("projects", secretKey);
        const answer = await client.categoriseLicenses(
          {
            teamId: use.teamId,
            ...(use.distributionModel ? { distributionModel: use.distributionModel } : {}),
            ...(use.aiUsageContext ? { aiUsageContext: use.aiUsageContext } : {}),
            components: components
              .slice(at, at + CATEGORISE_CHUNK)
              .map((c) => ({ license: c.license ?? "", purl: c.purl ?? "" })),
          },
          { contextValues: createContextValues().set(callerTokenKey, token), ...(signal ? { signal } : {}) },
        );
        categories.push(...answer.categories);
      }
      return categories;
    },
  };
}
