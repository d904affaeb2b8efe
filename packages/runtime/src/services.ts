// The services of the portal and where each listens locally. In Kubernetes the addresses come from
// <SERVICE>_RPC_URL (set by the Helm chart); these defaults are the single-machine layout of ./dev up.
import { loadConfig, serviceAddressKey, serviceAddressKeys } from "@sca/config";

export const SERVICES = {
  identity: 7101,
  projects: 7102,
  "scan-orchestrator": 7103,
  "scanner-runner": 7104,
  policy: 7105,
  notifier: 7106,
  admin: 7107,
} as const;

export type ServiceName = keyof typeof SERVICES;

export function defaultRpcPort(name: ServiceName): number {
  return SERVICES[name];
}

/** The service's Connect address: <SERVICE>_RPC_URL from `env` (the process's by default), else its local port. */
export function rpcUrlFor(name: ServiceName, env?: Readonly<Record<string, string | undefined>>): string {
  return loadConfig(serviceAddressKeys(name, SERVICES[name]), env)[serviceAddressKey(name)];
}
