export { loadConfig, loadConfigOrExit, exitOnConfigError, ConfigError } from "./load.ts";
export type { ConfigOf, KeySpec } from "./load.ts";
export type { ServiceAddressKey } from "./keys.ts";
export * as parse from "./parse.ts";
export { artefactStoreKeys, keys, serviceAddressKey, serviceAddressKeys } from "./keys.ts";
