export { ARTEFACT_KEY_MAX_CHARS, artefactKeySegments, artefactTooLarge, InvalidArtefactKey } from "./store.ts";
export type { ArtefactInfo, ArtefactStore, ListedArtefact, PutOptions, StorageUsage, StoredArtefact } from "./store.ts";
export { bytesSource, DirectoryArtefactStore } from "./directory-store.ts";
export { S3ArtefactStore, UNBOUNDED_BYTES } from "./s3-store.ts";
export type { S3ArtefactStoreOptions } from "./s3-store.ts";
export { openArtefactStore } from "./open-store.ts";
export type { ArtefactStoreSettings } from "./open-store.ts";
export { artefactBytes } from "./artefact-bytes.ts";
