export { ARTEFACT_KEY_MAX_CHARS, artefactKeySegments, artefactTooLarge, InvalidArtefactKey } from "./store.ts";
export type { ArtefactInfo, ArtefactStore, PutOptions, StorageUsage, StoredArtefact } from "./store.ts";
export { bytesSource, DirectoryArtefactStore } from "./directory-store.ts";
