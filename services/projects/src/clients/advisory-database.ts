// The scanner-runner's local vulnerability database, as the external lookups ask it: by package and by an
// advisory's name. The runner owns the advisories (every one it imported, not only those a scan matched), so they
// are asked at read time; the call is made as the caller, re-signed for this hop.
import { createContextValues, type Client } from "@connectrpc/connect";
import {
  AdvisoryLookupService,
  type LookupAdvisoryResponse,
} from "@sca/proto/sca/scannerrunner/v1/advisory_lookups_pb.ts";
import { callerTokenKey, createServiceClient, signCallerToken, type Caller } from "@sca/rpc";

export interface AdvisoryDatabase {
  /** The vulnerabilities whose advisories name the package (OSV ecosystem, matcher's name), any version, sorted. */
  packageAdvisories(caller: Caller, ecosystem: string, name: string): Promise<string[]>;
  /** The vulnerability a name (its id or any alias, ignoring case) stands for. */
  advisory(caller: Caller, name: string): Promise<LookupAdvisoryResponse>;
}

export function runnerAdvisoryDatabase(url: string, secretKey: string): AdvisoryDatabase {
  const client: Client<typeof AdvisoryLookupService> = createServiceClient(AdvisoryLookupService, url, {
    timeoutMs: 10_000,
  });
  const as = async (caller: Caller) => ({
    contextValues: createContextValues().set(callerTokenKey, await signCallerToken(caller, secretKey)),
  });
  return {
    async packageAdvisories(caller, ecosystem, name) {
      return (await client.lookupPackageAdvisories({ ecosystem, name }, await as(caller))).vulnerabilityIds;
    },
    async advisory(caller, name) {
      return client.lookupAdvisory({ name }, await as(caller));
    },
  };
}
