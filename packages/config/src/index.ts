export { loadConfig, loadConfigOrExit, exitOnConfigError, pickKeys, ConfigError } from "./load.ts";
export type { ConfigOf, KeySpec } from "./load.ts";
export type { ServiceAddressKey } from "./keys.ts";
export * as parse from "./parse.ts";
export { artefactStoreKeys, key, keys, serviceAddressKey, serviceAddressKeys } from "./keys.ts";
