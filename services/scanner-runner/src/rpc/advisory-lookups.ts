// AdvisoryLookupService: the local vulnerability database asked by package or by an advisory's name (any
// authenticated caller), answered from the matcher in memory, which is rebuilt whenever the stored database version
// moves (docs/vulnerability-database.md, "Lookups").
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { ProblemError } from "@sca/problem";
import { AdvisoryLookupService } from "@sca/proto/sca/scannerrunner/v1/advisory_lookups_pb.ts";
import { requireCaller } from "@sca/rpc";
import type { AdvisoryDatabase } from "../vulndb/advisory-database.ts";

const lengthViolation = (path: string, text: string, min: number, max: number) =>
  text.length < min || text.length > max ? [{ path, message: `must be ${min}..${max} characters` }] : [];

/** The matcher of the stored database version; 503 while an instance has none (a fresh install still importing). */
async function indexOf(vulndb: AdvisoryDatabase) {
  try {
    return (await vulndb.index()).index;
  } catch {
    throw new ProblemError({ status: 503, detail: "The vulnerability database is not available yet." });
  }
}

export function registerAdvisoryLookupService(router: ConnectRouter, vulndb: AdvisoryDatabase): void {
  router.service(AdvisoryLookupService, {
    async lookupPackageAdvisories(req, ctx: HandlerContext) {
      requireCaller(ctx);
      const violations = [
        ...lengthViolation("ecosystem", req.ecosystem, 1, 64),
        ...lengthViolation("name", req.name, 1, 1000),
      ];
      if (violations.length) throw ProblemError.validation(violations);
      return { vulnerabilityIds: (await indexOf(vulndb)).vulnerabilitiesOf(req.ecosystem, req.name) };
    },

    async lookupAdvisory(req, ctx: HandlerContext) {
      requireCaller(ctx);
      const violations = lengthViolation("name", req.name, 1, 200);
      if (violations.length) throw ProblemError.validation(violations);
      const named = (await indexOf(vulndb)).vulnerabilityNamed(req.name);
      if (!named) return { found: false, name: req.name };
      const { vulnerability: v } = named;
      return {
        found: true,
        name: named.name,
        aliases: [v.id, ...v.aliases].filter((n) => n !== named.name).sort(),
        summary: v.summary,
        ...(v.cvss3 && v.cvss3.score !== null ? { cvss3Score: v.cvss3.score, cvss3Vector: v.cvss3.vector } : {}),
      };
    },
  });
}
