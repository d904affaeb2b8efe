// The keys policy reads besides the runtime's: the services it asks, and the deployment's defaults of the build gate
// under the gate policies (docs/gate.md).
import { key, parse as p, serviceAddressKeys } from "@sca/config";
import { SERVICES } from "@sca/runtime/services";

export const policyKeys = {
  ...serviceAddressKeys("identity", SERVICES.identity),
  ...serviceAddressKeys("projects", SERVICES.projects),
  GATE_MALICIOUS_ENABLED: key(p.bool(true)),
  /** 0..1; unset (or empty) leaves the EPSS check off unless a gate policy sets a threshold. */
  GATE_EPSS_THRESHOLD: key((raw): number | null => {
    if (raw === undefined || raw.trim() === "") return null;
    return p.num(0, { min: 0, max: 1 })(raw, {});
  }),
  GATE_EPSS_ON_MISSING_DATA: key(p.oneOf(["allow", "block"] as const, "allow")),
};
