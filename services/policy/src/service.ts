// The policy service: license policies over the built-in SPDX catalog (docs/license-policies.md,
// docs/license-catalog.md), the CI build gate (docs/gate.md), approval requests and organization verdicts
// (docs/approvals.md). main.ts runs it; tests start it through the test kit.
import { TOPICS } from "@sca/kafka";
import { defineService } from "@sca/runtime";
import { policyKeys } from "./config.ts";
import { identityDirectory } from "./clients/directory.ts";
import { projectGateFacts } from "./clients/gate-facts.ts";
import { projectsService } from "./clients/projects.ts";
import { projectsLicenseInventory } from "./clients/license-inventory.ts";
import { announceExpiredExceptions } from "./events/exception-expiries.ts";
import { GATE_EVALUATION_GROUP, gateEvaluationHandler, gateTriggers, judgesGate } from "./events/gate-evaluation.ts";
import { applyProjectRename, PROJECT_NAMES_GROUP, projectUpdates } from "./events/project-names.ts";
import { registerApprovalService } from "./rpc/approval-service.ts";
import { registerGatePolicyService } from "./rpc/gate-policy-service.ts";
import { registerGovernanceService } from "./rpc/governance-service.ts";
import { registerLicensePolicyService } from "./rpc/license-policy-service.ts";
import { registerOrganizationVerdictService } from "./rpc/organization-verdict-service.ts";
import { registerObligationService } from "./rpc/obligation-service.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

interface PolicySeams {
  /** How often expired license exceptions are looked for; tests shorten it. */
  exceptionExpiryCheckEveryMs: number;
}

const seams: PolicySeams = { exceptionExpiryCheckEveryMs: 60_000 };

export const service = defineService({
  name: "policy",
  seams,
  config: policyKeys,
  entities,
  migrations,
  kafka: { outbox: true, produces: [TOPICS.domainEvents, TOPICS.auditEvents], consumes: [TOPICS.domainEvents] },
  start: ({ orm, secretKey, config, kafka }) => {
    kafka.consume({ groupId: PROJECT_NAMES_GROUP, topic: projectUpdates, handle: applyProjectRename });
    const directory = identityDirectory(config.IDENTITY_RPC_URL, secretKey);
    const projects = projectsService(config.PROJECTS_RPC_URL, secretKey);
    const wakeRelay = () => kafka.wakeRelay();
    const gateFacts = projectGateFacts(config.PROJECTS_RPC_URL, secretKey);
    const gateDeployment = {
      maliciousEnabled: config.GATE_MALICIOUS_ENABLED,
      epssThreshold: config.GATE_EPSS_THRESHOLD,
      epssOnMissingData: config.GATE_EPSS_ON_MISSING_DATA,
    };
    kafka.consume({
      groupId: GATE_EVALUATION_GROUP,
      topic: gateTriggers,
      handle: gateEvaluationHandler({ projects: gateFacts, deployment: gateDeployment }),
      acts: judgesGate,
    });
    return (router) => {
      registerLicensePolicyService(router, { orm, directory, wakeRelay });
      registerApprovalService(router, { orm, directory, projects, wakeRelay });
      registerOrganizationVerdictService(router, { orm, projects, wakeRelay });
      registerGatePolicyService(router, {
        orm,
        directory,
        projects: gateFacts,
        deployment: gateDeployment,
        wakeRelay,
      });
      registerGovernanceService(router, { orm, projects: gateFacts });
      const inventory = projectsLicenseInventory(config.PROJECTS_RPC_URL, secretKey);
      registerObligationService(router, { orm, inventory, wakeRelay });
    };
  },
  jobs: ({ orm, logger, kafka, seams }) => [
    {
      name: "license exception expiry",
      everyMs: seams.exceptionExpiryCheckEveryMs,
      run: async (signal) => {
        const announced = await announceExpiredExceptions(orm, new Date(), signal);
        if (announced > 0) {
          kafka.wakeRelay();
          logger.info({ announced }, "announced policies whose license exceptions expired");
        }
      },
    },
  ],
});
